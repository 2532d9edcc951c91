"""`refig suite build figcodebench --from DIR`: import a local copy of FigCodeBench's release.

The release layout is ``<python|Matlab|R|latex>/{exemplary,user_generated}/
{code,image}_<version>/[<Category>/]``: a program ``<stem>.<py|m|R|tex>`` in a ``code_*``
folder pairs with the image ``<stem>.<png|jpg>`` at the same place under the matching
``image_*`` folder, and with ``<stem>_auxinfo.txt`` beside the program when there is one.
Python, MATLAB and R keep one folder per category; LaTeX is flat (no category folder), and the
release's scripts tag it ``Conceptual``, as the importer does. Other files beside the program
whose names the auxinfo lists, or that start with ``<stem>_``, are its data files.

Only regular files inside ``--from`` are read, each opened without following links
(``refig.plugin.read_confined``): a symlink anywhere in the release is refused, never copied.
Nothing is dropped silently: a program without its image, a file that cannot be read safely
(corrupt, over the pixel or byte limits), an image without a program, a link and any other
file no task takes are counted by cause (``params.skipped``) and named (``params.skipped_files``,
the first hundred) and returned in :class:`Imported` for the command to print.
Every task records where each of its files came from (path and sha256) in ``meta.provenance``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from refig.plugin import FileRefused, RefigError, Suite, SuiteWriter, confined_files, read_confined
from refig_toolkit_imaging import MAX_PIXELS, ImageError, open_image

from refig_family_figure_to_code.languages import SPECS, Language
from refig_family_figure_to_code.suites.auxinfo import parse_auxinfo
from refig_family_figure_to_code.suites.tasks import TaskDraft, set_tiers, write_task

SPLITS = ("exemplary", "user_generated")
_CODE_SUFFIX = {Language.PYTHON: ".py", Language.MATLAB: ".m", Language.R: ".r",
                Language.LATEX: ".tex"}
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
#: The category of a program kept without a category folder (the release's tag for LaTeX).
FLAT_CATEGORY = {Language.LATEX: "Conceptual"}
UNCATEGORISED = "Uncategorised"
MAX_FILE_BYTES = 32 << 20
#: The capture protocol every imported task declares (see :mod:`..capture`).
PROTOCOL = "figcodebench"


@dataclass
class Imported:
    """What an import took and what it could not, by cause, with the files named."""

    suite: Suite
    by_language: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    skipped_files: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Place:
    """Where one release file sits: language, split, ``code``/``image``, version, category."""

    language: Language
    split: str
    kind: str
    variant: str
    category: str | None


def _language_of(folder: str) -> Language | None:
    for language, spec in SPECS.items():
        if folder.lower() == spec.release_folder.lower():
            return language
    return None


def _place(parts: tuple[str, ...]) -> _Place | None:
    """The place of a file from its path's parts below the release, or None when the path is
    not in the layout."""
    if len(parts) not in (4, 5) or parts[1] not in SPLITS:
        return None
    language = _language_of(parts[0])
    kind, _, variant = parts[2].partition("_")
    if language is None or kind not in ("code", "image") or not variant:
        return None
    return _Place(language, parts[1], kind, variant, parts[3] if len(parts) == 5 else None)


def _category(place: _Place) -> str:
    return place.category or FLAT_CATEGORY.get(place.language, UNCATEGORISED)


class _Release:
    """The release's regular files, read only through :func:`read_confined`."""

    def __init__(self, root: Path):
        self.root = root
        self.files, self.refused = confined_files(root)
        self.places = {p: _place(p.relative_to(root).parts) for p in self.files}

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def read(self, path: Path) -> bytes:
        try:
            return read_confined(path, self.root, max_bytes=MAX_FILE_BYTES)
        except FileRefused as exc:
            raise RefigError(str(exc), path=path) from None

    def provenance(self, path: Path, data: bytes) -> dict[str, str]:
        return {"path": self.rel(path), "sha256": hashlib.sha256(data).hexdigest()}


def _image_key(place: _Place, stem: str) -> tuple[object, ...]:
    return (place.language, place.split, place.variant, place.category, stem.lower())


def _draft(release: _Release, program: Path, place: _Place, image: Path,
           siblings: list[Path], used: set[Path]) -> TaskDraft:
    stem = program.stem
    category = _category(place)
    aux_path = program.with_name(f"{stem}_auxinfo.txt")
    aux_bytes = release.read(aux_path) if aux_path in release.places else None
    aux = parse_auxinfo(aux_bytes.decode("utf-8", "replace")) if aux_bytes is not None else None
    code, figure = release.read(program), release.read(image)
    open_image(figure, max_pixels=MAX_PIXELS, name=release.rel(image))
    provenance: dict[str, object] = {
        "release": release.root.as_posix(), "split": place.split, "variant": place.variant,
        "program": release.provenance(program, code), "image": release.provenance(image, figure)}
    listed = set(aux.data_files) if aux else set()
    data: dict[str, bytes] = {}
    taken = {program, image}
    for sibling in siblings:
        if sibling in (program, aux_path):
            continue
        if sibling.name in listed or sibling.name.startswith(f"{stem}_"):
            data[sibling.name] = release.read(sibling)
            provenance[f"data/{sibling.name}"] = release.provenance(sibling, data[sibling.name])
            taken.add(sibling)
    if aux_bytes is not None:
        provenance["auxinfo"] = release.provenance(aux_path, aux_bytes)
        taken.add(aux_path)
    params: dict[str, object] = {"capture": PROTOCOL}
    if aux is not None:
        params["auxiliary_info"] = aux.text
        if aux.packages:
            params["packages"] = list(aux.packages)
        if aux.seed is not None:
            params["seed"] = aux.seed
    used |= taken
    slug = "".join(c if c.isalnum() or c in "._-" else "-" for c in stem)
    language = place.language
    return TaskDraft(id=f"{language.value}-{place.split}-{place.variant}-{category.lower()}-"
                        f"{slug}",
                     language=language, figure=figure,
                     figure_name=f"figure{image.suffix.lower()}",
                     code=code.decode("utf-8", "replace"), category=category.lower(),
                     data=data, params=params,
                     meta={"provenance": provenance, "split": place.split,
                           "variant": place.variant},
                     cluster=f"{language.value}-{place.split}-{category.lower()}-{slug}")


def _is_program(path: Path, place: _Place) -> bool:
    return place.kind == "code" and path.suffix.lower() == _CODE_SUFFIX[place.language] \
        and not path.name.endswith("_auxinfo.txt")


def import_release(out: Path | str, *, source: Path | str,
                   progress: Callable[[str], None] | None = None) -> Imported:
    """Import every paired program and image under ``source`` into a suite at ``out``."""
    root = Path(os.path.abspath(source))
    if not root.is_dir() or not any(_language_of(p.name) for p in root.iterdir()
                                    if p.is_dir() and not p.is_symlink()):
        raise RefigError("no FigCodeBench language folder (python, Matlab, R, latex) found",
                         path=root, fix="point --from at the folder holding the release's "
                         "language folders")
    release = _Release(root)
    skipped: Counter[str] = Counter()
    named: list[str] = []

    def skip(cause: str, path: Path | str, why: str = "") -> None:
        skipped[cause] += 1
        text = path if isinstance(path, str) else release.rel(path)
        named.append(f"{text}: {why or cause}")

    for refused in release.refused:
        skip("link or special file refused", str(refused.path.relative_to(root)), refused.reason)
    images: dict[tuple[object, ...], Path] = {}
    for path, place in release.places.items():
        if place is not None and place.kind == "image" and \
                path.suffix.lower() in _IMAGE_SUFFIXES:
            key = _image_key(place, path.stem)
            if key not in images or path.suffix.lower() == ".png":
                images[key] = path
    folders: dict[Path, list[Path]] = {}
    for path in release.files:
        folders.setdefault(path.parent, []).append(path)
    drafts: list[TaskDraft] = []
    used: set[Path] = set()
    for path, place in release.places.items():
        if place is None or not _is_program(path, place):
            continue
        image = images.get(_image_key(place, path.stem))
        if image is None:
            skip("program without image", path)
            used.add(path)
            continue
        try:
            draft = _draft(release, path, place, image, folders[path.parent], used)
        except (ImageError, RefigError) as exc:
            skip("unreadable or oversized file", path, exc.message)
            used |= {path, image}
            continue
        drafts.append(draft)
        if progress:
            progress(draft.id)
    for path, place in release.places.items():
        if path in used:
            continue
        if place is None:
            skip("outside the release's layout", path)
        elif place.kind == "image" and path.suffix.lower() in _IMAGE_SUFFIXES:
            skip("image without program", path)
        else:
            skip("file no task takes", path)
    if not drafts:
        raise RefigError("no program in the release pairs with an image", path=root)
    with tempfile.TemporaryDirectory(prefix="refig-figcodebench-") as scratch:
        set_tiers(drafts, Path(scratch))
    writer = SuiteWriter(out, name="figcodebench", family="figure-to-code",
                         builder="figcodebench",
                         params={"source": root.as_posix(), "capture": PROTOCOL,
                                 "skipped": dict(skipped), "skipped_files": named[:100]},
                         description="FigCodeBench, imported from a local copy of its release.")
    for draft in drafts:
        write_task(writer, draft)
    return Imported(writer.finish(), Counter(d.language.value for d in drafts), skipped, named)


def build_figcodebench(out: Path | str, *, source: Path | str,
                       progress: Callable[[str], None] | None = None) -> Suite:
    """The suite :func:`import_release` writes (the suite registry's builder)."""
    return import_release(out, source=source, progress=progress).suite
