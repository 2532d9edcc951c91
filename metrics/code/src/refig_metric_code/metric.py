"""The `code` metric: every FigCodeBench number of one generated program.

Names (all in ``docs/figure-to-code.md``): ``execution`` (1 when the program ran and made an
image); ``psnr``, ``ssim``, ``lpips``, ``ciede2000`` (raw: None when it did not run) and each
``<name>_weighted`` (the worst value on failure); ``crystalbleu``, ``ast``, ``api_f1``;
``tokens`` and ``reference_tokens`` (L); ``smuggling`` (1 when flagged, reasons in detail; it
caps the judgments through the rubric) and ``fcf`` (exactly the issue's definition).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from PIL import Image
from refig.plugin import Artifact, MetricValue, ValueMaker
from refig_metric_image.perceptual import Lpips

from refig_metric_code.corpus import Ignored, suite_trivial_ngrams
from refig_metric_code.fcf import fcf
from refig_metric_code.languages import Language
from refig_metric_code.pixels import WORST, pixel_scores
from refig_metric_code.scoring import score_code
from refig_metric_code.smuggling import COPIED_INPUT_KEY, detect

VERSION = "3"
IMAGE_NAMES = tuple(WORST)
NAMES = ("execution", *IMAGE_NAMES, *(f"{n}_weighted" for n in IMAGE_NAMES), "crystalbleu",
         "ast", "api_f1", "tokens", "reference_tokens", "smuggling", "fcf")


def _not_meaningful(covered: tuple[int, ...], ignored: Ignored,
                    language: Language) -> str | None:
    """Why CrystalBLEU is not reported for this program, or None when it is."""
    if not covered:
        return None
    orders = ", ".join(str(n) for n in covered)
    return (f"the {len(ignored.ngrams)} ignored n-grams learned from the suite's "
            f"{ignored.references} {language.value} reference program(s) cover every n-gram "
            f"of order {orders} of the reference, so every program would read 0")


def copied_input(page: Path | None) -> str | None:
    """The visible input the executed image copies, as the realiser recorded it in the page."""
    if page is None:
        return None
    with Image.open(page) as image:
        return getattr(image, "text", {}).get(COPIED_INPUT_KEY)


def _language(artifact: Artifact) -> Language | None:
    value = artifact.task.params.get("language") if artifact.task is not None else None
    return Language.parse(str(value)) if value else None


class CodeMetrics:
    """Computes :data:`NAMES` for one figure-to-code artifact."""

    version = VERSION

    def __init__(self, *, smoothing: str | None = None, lpips_weights: str | None = None,
                 trivial_k: int = 500):
        self.smoothing = smoothing
        self.lpips = Lpips(lpips_weights)
        self.trivial_k = trivial_k

    def compute(self, artifact: Artifact) -> Iterator[MetricValue]:
        reference_code = artifact.references.get("reference_code")
        figure = artifact.references.get("figure")
        make = ValueMaker(artifact, "code", VERSION,
                          reference_sha256=artifact.task.input("reference_code").sha256
                          if artifact.task and artifact.task.input("reference_code") else None)
        language = _language(artifact)
        if language is None or reference_code is None or figure is None:
            yield from make.missing(NAMES, "the task has no language, reference code or figure")
            return
        source = artifact.path.read_text("utf-8", errors="replace") \
            if artifact.path.is_file() else ""
        reference = reference_code.read_text("utf-8", errors="replace")
        image = artifact.pages[0] if artifact.gate.passed and artifact.pages else None
        executed = image is not None
        scores = pixel_scores(figure, image, self.lpips)
        yield make.value("execution", float(executed), reason=artifact.gate.reason)
        for name in IMAGE_NAMES:
            note = scores.lpips_note if name == "lpips" and scores.lpips_note else None
            yield make.value(name, getattr(scores, name), note=note)
            # A failure weighs the worst value; LPIPS that cannot run here is None either way.
            off = name == "lpips" and bool(scores.lpips_note)
            yield make.value(f"{name}_weighted", None if off else scores.weighted(name), note=note)
        ignored = suite_trivial_ngrams(reference_code, language, self.trivial_k)
        code = score_code(reference, source, language, ignored.ngrams, smooth=self.smoothing)
        yield make.value("crystalbleu", code.crystalbleu, smoothing=self.smoothing,
                         trivial_ngrams=len(ignored.ngrams), references=ignored.references,
                         not_meaningful=_not_meaningful(code.covered, ignored, language))
        yield make.value("ast", code.ast)
        yield make.value("api_f1", code.api_f1)
        yield make.value("tokens", float(code.tokens))
        yield make.value("reference_tokens", float(code.reference_tokens))
        names = (figure.name, f"source{figure.suffix}")  # its name in the agent's workspace
        finding = detect(source, language, figure_names=names, copied_input=copied_input(image))
        yield make.value("smuggling", float(finding.flagged), reasons=list(finding.reasons))
        value = fcf(executed=executed, psnr=scores.psnr,
                    ssim=scores.ssim, lpips=scores.lpips, delta_e=scores.ciede2000,
                    ref_tokens=code.reference_tokens, gen_tokens=code.tokens)
        yield make.value("fcf", value, smuggling=finding.flagged or None,
                         lpips="missing" if scores.lpips is None and executed else None)
