"""`refig doctor` checks of the figure-to-code toolchains, on this machine's real tools."""

from __future__ import annotations

import shutil

from refig.plugin import Status
from refig_family_figure_to_code.checks import toolchain_checks


def test_each_toolchain_is_reported_with_its_fix() -> None:
    checks = {c.component: c for c in toolchain_checks()}
    assert checks["figure-to-code python"].status is Status.OK
    names = " ".join(checks)
    for language in ("matlab", "r", "latex"):
        assert f"figure-to-code {language}" in names
    for check in checks.values():
        assert check.status is Status.OK or "apt-get install" in (check.fix or "")
    octave = next(c for name, c in checks.items() if name.startswith("figure-to-code matlab"))
    assert (octave.status is Status.OK) == bool(shutil.which("octave") or shutil.which("matlab"))
