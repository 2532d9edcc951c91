"""``build_folder``: a suite from a folder of figures and an optional provenance file."""

from __future__ import annotations

import json
import re
import unicodedata
from datetime import datetime
from pathlib import Path
from typing import Any

from refig.plugin import (
    RefigError,
    Refused,
    Suite,
    SuiteWriter,
    UsageError,
    confined_files,
    err,
    track,
)
from refig_toolkit_analysis import FIELD_KEYS
from refig_toolkit_imaging import MAX_PIXELS

from refig_suite_folder import provenance
from refig_suite_folder.convert import SUFFIXES, FigureError, read_figure

MAX_BYTES = 100_000_000
AUTO_PROVENANCE = ("manifest.json", "provenance.json", "provenance.csv")


def task_id(stem: str) -> str:
    """A task id from a file stem: ASCII letters, digits and ``._+-``, starting alphanumeric."""
    ascii_text = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode()
    cleaned = re.sub(r"[^A-Za-z0-9._+-]+", "-", ascii_text).strip("-._+")
    return cleaned or "figure"


def _unique(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name.casefold() in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name.casefold())
    return name


def _json_safe(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _hidden(path: Path, folder: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(folder).parts)


def figure_files(folder: Path) -> tuple[list[Path], list[Refused]]:
    """Figure files under ``folder`` (recursively, hidden ones skipped), in path order, and the
    links and special files refused on the way: a link, even one pointing inside the folder, is
    never followed, so no file from outside it can reach the suite."""
    files, refused = confined_files(folder)
    figures = [p for p in files if p.suffix.lower() in SUFFIXES and not _hidden(p, folder)]
    return figures, [r for r in refused if not _hidden(r.path, folder)]


def build_folder(source: Path | str, out: Path | str, *, name: str | None = None,
                 provenance_file: Path | None = None, max_pixels: int = MAX_PIXELS,
                 max_bytes: int = MAX_BYTES, skip_invalid: bool = False,
                 created_at: datetime | None = None, quiet: bool = True) -> Suite:
    """Copy (or convert) every figure of ``source`` into a suite at ``out``."""
    source, out = Path(source), Path(out)
    if not source.is_dir():
        raise UsageError(f"{source} is not a folder", fix="pass --from DIR, a folder of figures")
    if out.resolve() == source.resolve() or out.resolve().is_relative_to(source.resolve()):
        raise UsageError("--out must lie outside the folder of figures", path=out)
    inside = None
    if provenance_file is None:
        provenance_file = next((source / n for n in AUTO_PROVENANCE
                                if (source / n).is_file() or (source / n).is_symlink()), None)
        inside = source  # found in the folder: read like its figures, never through a link
    entries = provenance.load(provenance_file, inside) if provenance_file is not None else {}
    files, refused = figure_files(source)
    for item in refused:
        err.print(f"[yellow]refused[/] {item.path.relative_to(source).as_posix()}: "
                  f"{item.reason} (not followed)")
    if not files:
        raise RefigError(f"no figures in {source}" + (
            f" ({len(refused)} links or special files refused)" if refused else ""),
                         fix=f"put {', '.join(sorted(SUFFIXES))} files there")
    suite_name = task_id(name or source.resolve().name)
    writer = SuiteWriter(
        out, name=suite_name, family="figure-to-slide", builder="folder",
        params={"from": source.resolve().name, "files": len(files),
                "provenance": provenance_file.name if provenance_file else None},
        description=f"figures imported from {source.resolve().name}",
        created_at=created_at,
    )
    taken: set[str] = set()
    skipped: list[str] = []
    used: set[str] = set()
    with track("importing figures", len(files), quiet=quiet) as tracker:
        for path in files:
            tracker.start()
            relative = path.relative_to(source).as_posix()
            entry = provenance.lookup(entries, relative)
            try:
                figure = read_figure(path, source, max_pixels=max_pixels, max_bytes=max_bytes)
                digest = figure.original_sha256
                expected = (entry or {}).get("sha256")
                if expected and str(expected).lower() != digest:
                    raise FigureError(
                        f"provenance records sha256 {str(expected)[:12]}…, the file hashes to "
                        f"{digest[:12]}…", path=path,
                        fix="the file changed since the provenance was written; fix one of them",
                    )
            except FigureError as exc:
                if not skip_invalid:
                    raise
                skipped.append(f"{relative}: {exc.message}")
                tracker.finish(ok=False)
                continue
            identifier = _unique(task_id(path.stem), taken)
            meta: dict[str, Any] = {"file": relative, "original_sha256": digest,
                                    "width": figure.width, "height": figure.height}
            if figure.converted:
                meta["converted_from"] = path.suffix.lower().lstrip(".")
            if entry is not None:
                used.add(relative)
                meta["provenance"] = _json_safe(entry)
                field = next((entry[k] for k in FIELD_KEYS if entry.get(k)), None)
                if field:
                    meta["field"] = str(field)
            writer.add(identifier, f"{identifier}.{figure.extension}", figure.data, meta=meta)
            tracker.finish()
    unmatched = sorted(k for k in entries if not any(k in (u, Path(u).name) for u in used))
    for message in skipped:
        err.print(f"[yellow]skipped[/] {message}")
    if unmatched:
        err.print(f"[yellow]provenance entries without a file:[/] {', '.join(unmatched)}")
    if len(skipped) == len(files):
        raise RefigError("every figure was skipped; nothing to build", path=source)
    if refused:
        err.print(f"[yellow]{len(refused)} links or special files refused[/] in {source}")
    writer.set_params(skipped=skipped, unmatched_provenance=unmatched,
                      refused=[{"path": r.path.relative_to(source).as_posix(),
                                "reason": r.reason} for r in refused])
    return writer.finish()
