"""The `code` metric over one artifact: its FCF is the benchmark's formula over the 1024 px
values it stores, its CrystalBLEU counts are the package's, LPIPS is on by default."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from refig.plugin import Artifact, Asset, GateResult, Task
from refig_metric_code.crystal import crystal_tokens, pair_counts, trivial_ngrams
from refig_metric_code.fcf import fcf
from refig_metric_code.metric import CodeMetrics
from refig_metric_code.pixels import FCF_SIDE, pixel_scores
from refig_metric_image.lpips_weights import CHECKPOINT, weights_dir

REFERENCE = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [3, 1, 2], color='red')\n" \
            "plt.title('Trend')\nplt.savefig('out.png')\n"
GENERATED = "import matplotlib.pyplot as plt\n# a longer try\nx = [1, 2, 3]\n" \
            "plt.plot(x, [3, 1, 2], color='blue')\nplt.plot(x, x)\nplt.title('Trend')\n"


def _figure(path: Path, colour: str) -> Path:
    image = Image.new("RGB", (900, 600), "white")
    ImageDraw.Draw(image).line([(50, 500), (450, 100), (850, 350)], fill=colour, width=8)
    image.save(path)
    return path


@pytest.mark.skipif(not (weights_dir() / CHECKPOINT).is_file(),
                    reason="no LPIPS weights: run refig-lpips-weights")
def test_one_program_s_values(tmp_path: Path) -> None:
    reference = tmp_path / "reference.py"
    reference.write_text(REFERENCE)
    program = tmp_path / "figure.py"
    program.write_text(GENERATED)
    figure = _figure(tmp_path / "figure.png", "red")
    page = _figure(tmp_path / "page.png", "blue")
    task = Task(id="t", family="figure-to-code", params={"language": "python"},
                inputs={"reference_code": Asset(path="reference.py", sha256="c" * 64)})
    artifact = Artifact(path=program, sha256="a" * 64, gate=GateResult(passed=True),
                        family="figure-to-code", pages=(page,), task=task,
                        references={"figure": figure, "reference_code": reference})
    values = {v.name: v for v in CodeMetrics(trivial_k=5).compute(artifact)}
    assert values["lpips"].value is not None and values["lpips"].value > 0  # on by default
    large = pixel_scores(figure, page, side=FCF_SIDE)
    detail = values["fcf"].detail
    assert (detail["psnr"], detail["ssim"], detail["lpips"], detail["ciede2000"]) == (
        large.psnr, large.ssim, large.lpips, large.ciede2000)
    ref_tokens, gen_tokens = crystal_tokens(REFERENCE, "python"), crystal_tokens(GENERATED,
                                                                                  "python")
    assert values["tokens"].value == len(gen_tokens) > len(ref_tokens)
    assert values["fcf"].value == pytest.approx(fcf(
        executed=True, psnr=large.psnr, ssim=large.ssim, lpips=large.lpips,
        delta_e=large.ciede2000, ref_tokens=len(ref_tokens), gen_tokens=len(gen_tokens)))
    assert detail["compactness"] == pytest.approx(len(ref_tokens) / len(gen_tokens))
    counts = pair_counts(ref_tokens, gen_tokens, trivial_ngrams([ref_tokens], 5))
    assert values["crystalbleu_sentence"].detail["matches"] == list(counts.matches)
    assert values["codebertscore_f1"].value is None
    assert "codebert_model" in values["codebertscore_f1"].detail["reason"]
