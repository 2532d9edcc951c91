"""The `code` metric: every FigCodeBench number of one generated program.

Names (all in ``docs/figure-to-code.md``): ``execution`` (1 when the program ran and made an
image); ``psnr``, ``ssim``, ``lpips``, ``ciede2000`` at 256 px as the benchmark's
``image_metrics.py`` computes them (raw: None when it did not run) and each ``<name>_weighted``
(the worst value on failure); ``crystalbleu_sentence`` (refig's per-program CrystalBLEU; its
detail holds the counts the report sums into the benchmark's corpus ``crystalbleu``), ``ast``,
``api_f1`` (multiset); ``tokens`` and ``reference_tokens`` (L); ``codebertscore_*`` (Python,
with a local model); ``smuggling`` (1 when flagged, reasons in detail; it caps the judgments
through the rubric) and ``fcf`` (at 1024 px, the benchmark's).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from PIL import Image
from refig.plugin import Artifact, Metric, MetricValue, ValueMaker
from refig_metric_image.perceptual import Lpips

from refig_metric_code.codebert import NAMES as CODEBERT_NAMES
from refig_metric_code.codebert import CodeBert
from refig_metric_code.corpus import Ignored, suite_trivial_ngrams
from refig_metric_code.crystal import SMOOTHING
from refig_metric_code.fcf import fcf
from refig_metric_code.languages import Language
from refig_metric_code.pixels import FCF_SIDE, SIDE, WORST, pixel_scores_at
from refig_metric_code.scoring import score_code
from refig_metric_code.smuggling import COPIED_INPUT_KEY, detect

VERSION = "3"
IMAGE_NAMES = tuple(WORST)
NAMES = ("execution", *IMAGE_NAMES, *(f"{n}_weighted" for n in IMAGE_NAMES),
         "crystalbleu_sentence", "ast", "api_f1", "tokens", "reference_tokens", *CODEBERT_NAMES,
         "smuggling", "fcf")


def _not_meaningful(covered: tuple[int, ...], ignored: Ignored,
                    language: Language) -> str | None:
    """Why CrystalBLEU is smoothing alone for this program, or None when it is not."""
    if not covered:
        return None
    orders = ", ".join(str(n) for n in covered)
    return (f"the {len(ignored.ngrams)} ignored n-grams learned from the suite's "
            f"{ignored.references} {language.value} reference program(s) cover every n-gram "
            f"of order {orders} of the reference, so no program can match there")


def copied_input(page: Path | None) -> str | None:
    """The visible input the executed image copies, as the realiser recorded it in the page."""
    if page is None:
        return None
    with Image.open(page) as image:
        return getattr(image, "text", {}).get(COPIED_INPUT_KEY)


def _language(artifact: Artifact) -> Language | None:
    value = artifact.task.params.get("language") if artifact.task is not None else None
    return Language.parse(str(value)) if value else None


class CodeMetrics(Metric):
    """Computes :data:`NAMES` for one figure-to-code artifact."""

    def __init__(self, *, lpips_weights: str | None = None, trivial_k: int | str = 500,
                 codebert_model: str | None = None):
        self.lpips = Lpips(lpips_weights)
        self.trivial_k = int(trivial_k)
        if self.trivial_k < 1:
            raise ValueError(f"trivial_k must be at least 1, not {trivial_k}")
        self.codebert = CodeBert(codebert_model)
        # values computed with other options are other values: stored apart, not reused
        self.version = VERSION + ("" if self.trivial_k == 500 else f"+k{self.trivial_k}") + (
            "+codebert" if self.codebert.model else "")

    def compute(self, artifact: Artifact) -> Iterator[MetricValue]:
        reference_code = artifact.references.get("reference_code")
        figure = artifact.references.get("figure")
        make = ValueMaker(artifact, "code", self.version,
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
        scores, large = pixel_scores_at(figure, image, self.lpips, (SIDE, FCF_SIDE))
        yield make.value("execution", float(executed), reason=artifact.gate.reason)
        for name in IMAGE_NAMES:
            note = scores.lpips_note if name == "lpips" and scores.lpips_note else None
            yield make.value(name, getattr(scores, name), note=note)
            # A failure weighs the worst value; LPIPS that cannot run here is None either way.
            off = name == "lpips" and bool(scores.lpips_note)
            yield make.value(f"{name}_weighted", None if off else scores.weighted(name), note=note)
        ignored = suite_trivial_ngrams(reference_code, language, self.trivial_k)
        code = score_code(reference, source, language, ignored.ngrams)
        # covered: no program can match there, the reference itself included; the counts stay
        yield make.value("crystalbleu_sentence",
                         None if code.covered else code.crystalbleu_sentence, smoothing=SMOOTHING,
                         trivial_ngrams=len(ignored.ngrams), references=ignored.references,
                         not_meaningful=_not_meaningful(code.covered, ignored, language),
                         **code.counts.as_detail())
        yield make.value("ast", code.ast)
        yield make.value("api_f1", code.api_f1)
        yield make.value("tokens", float(code.tokens))
        yield make.value("reference_tokens", float(code.reference_tokens))
        yield from self._codebert(make, language, reference, source)
        names = (figure.name, f"source{figure.suffix}")  # its name in the agent's workspace
        finding = detect(source, language, figure_names=names, copied_input=copied_input(image))
        yield make.value("smuggling", float(finding.flagged), reasons=list(finding.reasons))
        value = fcf(executed=executed, psnr=large.psnr, ssim=large.ssim, lpips=large.lpips,
                    delta_e=large.ciede2000, ref_tokens=code.reference_tokens,
                    gen_tokens=code.tokens)
        yield make.value("fcf", value, side=FCF_SIDE, psnr=large.psnr, ssim=large.ssim,
                         lpips=large.lpips, ciede2000=large.ciede2000,
                         compactness=min(1.0, code.reference_tokens / code.tokens)
                         if code.tokens else None,
                         smuggling=finding.flagged or None,
                         reason=f"no LPIPS, so no FCF: {large.lpips_note}"
                         if value is None else None)

    def _codebert(self, make: ValueMaker, language: Language, reference: str, source: str
                  ) -> Iterator[MetricValue]:
        why = self.codebert.unavailable(language)
        if why is not None:
            yield from make.missing(CODEBERT_NAMES, why)
            return
        for name, value in zip(CODEBERT_NAMES, self.codebert.score(reference, source),
                               strict=True):
            yield make.value(name, value)
