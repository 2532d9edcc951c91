"""A golden set realised once and compared with its expected results, and the verdict cached
per environment so that ``refig evaluate`` pays for it once per machine set-up."""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from refig.plugin import RefigError, Renderer, RenderJob, RenderOutput, cache_dir
from refig.plugin import err as console
from refig_toolkit_imaging import open_image

from refig_command_canary.environment import (
    Differences,
    canary_environment,
    differences,
    environment_digest,
)
from refig_command_canary.golden import GoldenDocument, GoldenSet

ENVIRONMENT_FILE = "environment.json"
#: A rendering failure of this kind means the machine lacks the toolchain: skipped, not failed.
MISSING_TOOLCHAIN = "toolchain_missing"


@dataclass(frozen=True)
class Verdict:
    """A set's verdict (a :class:`refig.protocols.CanaryVerdict`): whether it passed, what
    failed in one line, and the digest of the environment it was checked in ("" when its
    realiser could not start, so none was read)."""

    passed: bool
    differs: str = ""
    environment: str = ""


@dataclass(frozen=True)
class PageResult:
    """One page of one golden document: ``status`` is ``identical``, ``similar`` (SSIM within
    its bound), ``differs``, ``failed`` (not realised) or ``skipped`` (a toolchain is missing)."""

    document: GoldenDocument
    page: int
    status: str
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.status in ("identical", "similar")


@dataclass
class SetOutcome:
    """A golden set on this machine: each page's result and what differs in the environment."""

    golden: GoldenSet
    environment: dict[str, str]
    pages: list[PageResult] = field(default_factory=list)
    differences: Differences = field(default_factory=Differences)

    @property
    def passed(self) -> bool:
        return not self.differences.failures and not any(
            p.status in ("differs", "failed") for p in self.pages)

    def verdict(self) -> Verdict:
        """The verdict: what failed, said in one line, with the versions that differ from the
        expected results' when a page failed (the likely cause)."""
        said = list(self.differences.failures)
        failed = [f"{p.document.file} page {p.page + 1} {p.status}"
                  + (f" ({p.detail})" if p.detail else "")
                  for p in self.pages if p.status in ("differs", "failed")]
        said += failed
        if failed and self.differences.versions:
            said.append(f"versions differ: {', '.join(self.differences.versions)}")
        return Verdict(passed=self.passed, differs="; ".join(said),
                       environment=environment_digest(self.environment)
                       if self.environment else "")


def _expected_page(golden: GoldenSet, document: GoldenDocument, page: int) -> Path:
    return golden.expected / f"{Path(document.file).stem}-{page + 1}.png"


def _pixels(path: Path) -> tuple[tuple[int, int], str]:
    """An image's size and the sha256 of its RGB pixels (the PNG's encoding aside)."""
    image = open_image(path)
    return image.size, hashlib.sha256(image.tobytes()).hexdigest()


def compare_page(document: GoldenDocument, page: int, found: Path, expected: Path) -> PageResult:
    """One realised page against its expected one: identical pixels, else SSIM (the ``image``
    metric's, Wang et al. 2004) against the document's bound."""
    if not expected.is_file():
        return PageResult(document, page, "differs", "no expected result: refig canary --update")
    (size, pixels), (expected_size, expected_pixels) = _pixels(found), _pixels(expected)
    if pixels == expected_pixels:
        return PageResult(document, page, "identical")
    if size != expected_size:
        return PageResult(document, page, "differs",
                          f"{size[0]}x{size[1]} pixels, expected {expected_size[0]}x"
                          f"{expected_size[1]}")
    from refig_metric_image.similarity import ssim

    score = ssim(open_image(found), open_image(expected))
    bound = document.min_ssim
    if bound is not None and score >= bound:
        return PageResult(document, page, "similar", f"SSIM {score:.4f}")
    return PageResult(document, page, "differs",
                      f"SSIM {score:.4f}" + ("" if bound is None else f" < {bound:g}"))


def _document_results(golden: GoldenSet, document: GoldenDocument,
                      output: RenderOutput) -> list[PageResult]:
    if output.error is not None:
        status = "skipped" if output.error.kind == MISSING_TOOLCHAIN else "failed"
        return [PageResult(document, 0, status, f"{output.error.kind}: {output.error.message}")]
    expected = sorted(golden.expected.glob(f"{Path(document.file).stem}-*.png"))
    results = [compare_page(document, page, found, _expected_page(golden, document, page))
               for page, found in enumerate(output.pages)]
    if len(expected) > len(output.pages):
        results.append(PageResult(document, len(output.pages), "differs",
                                  f"{len(output.pages)} pages made, {len(expected)} expected"))
    return results


def make_renderer(golden: GoldenSet) -> Renderer:
    """The set's realiser, made with its options (RefigError when it cannot start here)."""
    from refig.plugin import make_plugin

    return make_plugin("renderer", golden.renderer, **golden.options)  # type: ignore[no-any-return]


def realise(golden: GoldenSet, renderer: Renderer, out: Path) -> list[RenderOutput]:
    """Every golden document of the set in one ``render`` call (one deck conversion)."""
    jobs = [RenderJob(golden.folder / d.file, pages=d.pages) for d in golden.documents]
    return renderer.render(jobs, out)


def expected_environment(golden: GoldenSet) -> dict[str, str]:
    """The environment the expected results were made in (none before ``--update``)."""
    try:
        found = json.loads((golden.expected / ENVIRONMENT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def _skipped(golden: GoldenSet, exc: RefigError) -> SetOutcome:
    """Every document skipped: the realiser cannot start here (saying why and the fix)."""
    said = exc.message + (f" (fix: {exc.fix})" if exc.fix else "")
    return SetOutcome(golden, {}, pages=[PageResult(d, 0, "skipped", said)
                                         for d in golden.documents])


def compare_set(golden: GoldenSet, renderer: Renderer, environment: dict[str, str]
                ) -> SetOutcome:
    """The set realised by ``renderer`` and compared, with ``environment``'s differences."""
    outcome = SetOutcome(golden, environment, differences=differences(
        expected_environment(golden), environment, golden.fonts))
    with tempfile.TemporaryDirectory(prefix="refig-canary-") as scratch:
        outputs = realise(golden, renderer, Path(scratch))
        for document, output in zip(golden.documents, outputs, strict=True):
            outcome.pages += _document_results(golden, document, output)
    return outcome


def run_set(golden: GoldenSet) -> SetOutcome:
    """Realise the set on this machine and compare it."""
    try:
        renderer = make_renderer(golden)
    except RefigError as exc:
        return _skipped(golden, exc)
    try:
        return compare_set(golden, renderer, canary_environment({golden.renderer: renderer}))
    finally:
        renderer.close()


def update_set(golden: GoldenSet) -> SetOutcome:
    """Record this machine's results as the set's expected ones (a maintainer's action): the
    pages of every document realised and the environment, replacing what was there."""
    renderer = make_renderer(golden)
    try:
        environment = canary_environment({golden.renderer: renderer})
        outcome = SetOutcome(golden, environment)
        with tempfile.TemporaryDirectory(prefix="refig-canary-") as scratch:
            outputs = realise(golden, renderer, Path(scratch))
            failed = [(d.file, o.error) for d, o in zip(golden.documents, outputs, strict=True)
                      if o.error is not None]
            if failed:
                raise RefigError(f"cannot update the golden set {golden.name}: {failed[0][0]} "
                                 f"was not realised ({failed[0][1]})",
                                 fix="install what it needs (refig doctor), then update again")
            shutil.rmtree(golden.expected, ignore_errors=True)
            golden.expected.mkdir(parents=True)
            for document, output in zip(golden.documents, outputs, strict=True):
                for page, made in enumerate(output.pages):
                    shutil.copyfile(made, _expected_page(golden, document, page))
                    outcome.pages.append(PageResult(document, page, "identical", "recorded"))
        (golden.expected / ENVIRONMENT_FILE).write_text(
            json.dumps(environment, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    finally:
        renderer.close()
    return outcome


def _expected_digest(golden: GoldenSet) -> str:
    """A digest of the set's documents and expected results (an update makes a new key)."""
    total = hashlib.sha256(repr((golden.key, [(d.file, d.pages, d.min_ssim)
                                              for d in golden.documents])).encode())
    for path in sorted([*(golden.folder / d.file for d in golden.documents),
                        *golden.expected.glob("*")]):
        if path.is_file():
            total.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return total.hexdigest()


def cached_verdict(golden: GoldenSet, *, quiet: bool = False) -> Verdict:
    """The set's verdict on this machine: a pass is kept in the cache under the set's and the
    environment's digests, so it is made once per machine set-up; a failure is made again
    each time (it may have been the machine's moment)."""
    try:
        renderer = make_renderer(golden)
    except RefigError as exc:
        return _skipped(golden, exc).verdict()
    try:
        environment = canary_environment({golden.renderer: renderer})
        digest = environment_digest(environment)
        key = hashlib.sha256(f"{_expected_digest(golden)}\0{digest}".encode()).hexdigest()
        marker = cache_dir() / "canary" / f"{golden.name}-{key[:32]}.json"
        if marker.is_file():
            return Verdict(passed=True, environment=digest)
        if not quiet:
            console.print(f"checking the golden canary {golden.name!r} on this machine (once "
                          "per environment)", highlight=False)
        verdict = compare_set(golden, renderer, environment).verdict()
    finally:
        renderer.close()
    if verdict.passed:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"environment": environment}, indent=2), encoding="utf-8")
    return verdict
