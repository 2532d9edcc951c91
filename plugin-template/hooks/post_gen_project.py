"""Keep the implementation and tests of the chosen kind; drop the others."""

import shutil
from pathlib import Path

KIND = "{{ cookiecutter.kind }}"
MODULE = Path("src") / "{{ cookiecutter.module }}"

kinds = Path("_kinds")
Path("tests").mkdir(exist_ok=True)  # git keeps no empty folder, so the template has none
shutil.move(kinds / KIND / "plugin.py", MODULE / "plugin.py")
shutil.move(kinds / KIND / "hooks.py", MODULE / "hooks.py")
shutil.move(kinds / KIND / "test_plugin.py", Path("tests") / "test_plugin.py")
shutil.rmtree(kinds)
