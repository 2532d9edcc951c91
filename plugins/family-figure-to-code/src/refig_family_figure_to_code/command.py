"""The options of ``refig suite build figcodebench`` and ``refig suite build code-sample``."""

from __future__ import annotations

from pathlib import Path

import typer


def figcodebench_command(
    out: Path = typer.Option(..., "--out", "-o", help="The suite directory to write."),
    source: Path = typer.Option(..., "--from", help="A local copy of FigCodeBench's release "
                                "(the folder holding python/, Matlab/, R/, latex/)."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress."),
) -> Path:
    """Import FigCodeBench's released figures, programs and auxiliary information; say what was
    imported per language and name every file it could not take (even with ``--quiet``)."""
    from refig.plugin import err

    from refig_family_figure_to_code.suites.figcodebench import import_release

    done = import_release(out, source=source, progress=None if quiet else _progress())
    counts = ", ".join(f"{n} {language}" for language, n in sorted(done.by_language.items()))
    err.print(f"imported {sum(done.by_language.values())} programs ({counts})", highlight=False)
    if done.skipped:
        causes = ", ".join(f"{n} {cause}" for cause, n in sorted(done.skipped.items()))
        err.print(f"not imported: {sum(done.skipped.values())} files ({causes}):",
                  highlight=False)
        for line in done.skipped_files:
            err.print(f"  {line}", highlight=False, markup=False)
    return out


def code_sample_command(
    out: Path = typer.Option(..., "--out", "-o", help="The suite directory to write."),
    seed: int = typer.Option(0, "--seed", help="Random seed: the same seed, the same programs."),
    per_category: int = typer.Option(1, "--per-category", "-n",
                                     help="Tasks per language and category."),
    language: list[str] = typer.Option(["python", "matlab", "r", "latex"], "--language",
                                       help="Languages (repeat the option)."),
    category: list[str] | None = typer.Option(None, "--category",
                                              help="Categories (default: all seven)."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress."),
) -> Path:
    """Generate plotting tasks; each reference image is made by running its program."""
    from refig_family_figure_to_code.sample.data import CATEGORIES
    from refig_family_figure_to_code.suites.code_sample import build_code_sample

    build_code_sample(out, seed=seed, per_category=per_category, languages=language,
                      categories=category or CATEGORIES,
                      progress=None if quiet else _progress())
    return out


def _progress():  # type: ignore[no-untyped-def]
    from refig.plugin import err

    count = [0]

    def tick(task_id: str) -> None:
        count[0] += 1
        err.print(f"[{count[0]}] {task_id}", highlight=False)

    return tick
