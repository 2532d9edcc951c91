"""`refig --help`, `refig list-plugins` and `refig check FILE` import no heavy library they do not
use (scipy alone cost seconds of every `refig check`). Each command runs in a fresh interpreter
with every installed plugin; the test reads which modules it loaded, never how long it took."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu

HEAVY = {"scipy", "skimage", "litellm", "ray", "onnxruntime", "rapidocr_onnxruntime", "torch"}
PROBE = """
import json, sys
from refig.cli import run
code = run(sys.argv[1:])
print(json.dumps({"code": code, "loaded": sorted({m.split(".")[0] for m in sys.modules})}))
"""


def loaded_by(*argv: str) -> set[str]:
    """The top-level packages a fresh interpreter loaded to run ``refig argv...``."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=False
    )
    last = done.stdout.strip().splitlines()[-1]
    report = json.loads(last)
    assert report["code"] == 0, done.stderr
    return set(report["loaded"])


@pytest.mark.parametrize("argv", [["--help"], ["list-plugins"], ["list-plugins", "--json"]])
def test_listing_commands_import_nothing_heavy(argv: list[str]) -> None:
    assert loaded_by(*argv) & HEAVY == set()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_check_of_a_native_slide_imports_nothing_heavy(tmp_path: Path) -> None:
    prs = Presentation()
    shapes = prs.slides.add_slide(prs.slide_layouts[6]).shapes
    a = shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(500_000), Emu(500_000), Emu(2_000_000),
                         Emu(900_000))
    b = shapes.add_shape(MSO_SHAPE.OVAL, Emu(4_500_000), Emu(500_000), Emu(2_000_000),
                         Emu(900_000))
    a.text, b.text = "encoder", "decoder"
    link = shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 1, 1)
    link.begin_connect(a, 3)
    link.end_connect(b, 1)
    slide = tmp_path / "native.pptx"
    prs.save(slide)
    loaded = loaded_by("check", "-q", "--json", str(slide))
    assert "refig_metric_flattening" in loaded  # the default metrics did run
    assert loaded & HEAVY == set()
