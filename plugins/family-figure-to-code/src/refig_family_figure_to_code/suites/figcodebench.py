"""`refig suite build figcodebench --from DIR`: import a local copy of FigCodeBench's release.

The release layout is ``<python|Matlab|R|latex>/{exemplary,user_generated}/
{code,image}_{base,variant1,variant2}/<Category>/``: a program ``<stem>.<py|m|R|tex>`` in a
``code_*`` folder pairs with the image ``<stem>.<png|jpg>`` in the matching ``image_*`` folder,
and with ``<stem>_auxinfo.txt`` beside the program when there is one. Other files beside the
program whose names the auxinfo lists, or that start with ``<stem>_``, are its data files.
Every task records where each of its files came from (path and sha256) in ``meta.provenance``.
A program without an image, or whose image or files cannot be read safely (corrupt, over the
pixel or byte limits), is skipped and counted (``params.skipped``, the first hundred named in
``params.skipped_files``), never guessed.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from refig.plugin import MAX_PIXELS, ImageError, RefigError, Suite, SuiteWriter, open_image

from refig_family_figure_to_code.languages import SPECS, Language
from refig_family_figure_to_code.suites.auxinfo import parse_auxinfo
from refig_family_figure_to_code.suites.tasks import TaskDraft, set_tiers, write_task

SPLITS = ("exemplary", "user_generated")
VARIANTS = ("base", "variant1", "variant2")
_CODE_SUFFIX = {Language.PYTHON: ".py", Language.MATLAB: ".m", Language.R: ".r",
                Language.LATEX: ".tex"}
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
MAX_FILE_BYTES = 32 << 20


def _language_dirs(root: Path) -> dict[Language, Path]:
    found = {}
    for child in sorted(root.iterdir()) if root.is_dir() else ():
        for language, spec in SPECS.items():
            if child.is_dir() and child.name.lower() == spec.release_folder.lower():
                found[language] = child
    return found


def _image_for(image_dir: Path, stem: str) -> Path | None:
    for suffix in _IMAGE_SUFFIXES:
        for candidate in (image_dir / f"{stem}{suffix}", image_dir / f"{stem}{suffix.upper()}"):
            if candidate.is_file():
                return candidate
    return None


def _provenance(path: Path, root: Path) -> dict[str, str]:
    return {"path": path.relative_to(root).as_posix(),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def _read(path: Path) -> bytes:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise RefigError(f"{path.name} is {path.stat().st_size:,} bytes, over the limit of "
                         f"{MAX_FILE_BYTES:,}", path=path)
    return path.read_bytes()


def _draft(language: Language, split: str, variant: str, category: str, program: Path,
           image: Path, root: Path) -> TaskDraft:
    stem = program.stem
    aux_path = program.with_name(f"{stem}_auxinfo.txt")
    aux = parse_auxinfo(aux_path.read_text("utf-8", "replace")) if aux_path.is_file() else None
    data: dict[str, bytes] = {}
    provenance = {"release": root.as_posix(), "split": split, "variant": variant,
                  "program": _provenance(program, root), "image": _provenance(image, root)}
    listed = set(aux.data_files) if aux else set()
    for sibling in sorted(program.parent.iterdir()):
        if sibling in (program, aux_path) or not sibling.is_file():
            continue
        if sibling.name in listed or sibling.name.startswith(f"{stem}_"):
            data[sibling.name] = _read(sibling)
            provenance[f"data/{sibling.name}"] = _provenance(sibling, root)
    if aux_path.is_file():
        provenance["auxinfo"] = _provenance(aux_path, root)
    params: dict[str, object] = {}
    if aux is not None:
        params["auxiliary_info"] = aux.text
        if aux.packages:
            params["packages"] = list(aux.packages)
        if aux.seed is not None:
            params["seed"] = aux.seed
    slug = "".join(c if c.isalnum() or c in "._-" else "-" for c in stem)
    task_id = f"{language.value}-{split}-{variant}-{category.lower()}-{slug}"
    return TaskDraft(id=task_id, language=language, figure=_read(image),
                     figure_name=f"figure{image.suffix.lower()}",
                     code=_read(program).decode("utf-8", "replace"), category=category.lower(),
                     data=data, params=params, meta={"provenance": provenance, "split": split,
                                                     "variant": variant},
                     cluster=f"{language.value}-{split}-{category.lower()}-{slug}")


def build_figcodebench(out: Path | str, *, source: Path | str,
                       progress: Callable[[str], None] | None = None) -> Suite:
    """Import every paired program and image under ``source`` into a suite at ``out``."""
    root = Path(source).resolve()
    languages = _language_dirs(root)
    if not languages:
        raise RefigError("no FigCodeBench language folder (python, Matlab, R, latex) found",
                         path=root, fix="point --from at the folder holding the release's "
                         "language folders")
    drafts: list[TaskDraft] = []
    skipped: Counter[str] = Counter()
    skipped_files: list[str] = []
    for language, folder in sorted(languages.items()):
        for split in SPLITS:
            for variant in VARIANTS:
                code_dir = folder / split / f"code_{variant}"
                image_dir = folder / split / f"image_{variant}"
                for category_dir in sorted(p for p in code_dir.glob("*") if p.is_dir()):
                    for program in sorted(category_dir.iterdir()):
                        if program.suffix.lower() != _CODE_SUFFIX[language] or \
                                program.name.endswith("_auxinfo.txt"):
                            continue
                        image = _image_for(image_dir / category_dir.name, program.stem)
                        if image is None:
                            skipped["program without image"] += 1
                            continue
                        try:
                            open_image(image, max_pixels=MAX_PIXELS)
                            draft = _draft(language, split, variant, category_dir.name,
                                           program, image, root)
                        except (ImageError, RefigError) as exc:
                            skipped["unreadable or oversized file"] += 1
                            skipped_files.append(f"{program.relative_to(root)}: {exc.message}")
                            continue
                        drafts.append(draft)
                        if progress:
                            progress(drafts[-1].id)
    if not drafts:
        raise RefigError("no program in the release pairs with an image", path=root)
    with tempfile.TemporaryDirectory(prefix="refig-figcodebench-") as scratch:
        set_tiers(drafts, Path(scratch))
    writer = SuiteWriter(out, name="figcodebench", family="figure-to-code",
                         builder="figcodebench",
                         params={"source": root.as_posix(), "skipped": dict(skipped),
                                 "skipped_files": skipped_files[:100]},
                         description="FigCodeBench, imported from a local copy of its release.")
    for draft in drafts:
        write_task(writer, draft)
    return writer.finish()
