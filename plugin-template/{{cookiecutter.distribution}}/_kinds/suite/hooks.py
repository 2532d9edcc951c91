"""Registers the {{ cookiecutter.name }} suite builder (`refig suite build {{ cookiecutter.name }}`)."""

from pathlib import Path
from typing import Annotated

import typer
from refig.plugin import SuiteRecord, hookimpl


def build(
    out: Path,
    n: Annotated[int, typer.Option(help="How many figures.")] = 3,
    seed: Annotated[int, typer.Option(help="Random seed; the same seed gives the same suite.")] = 0,
) -> Path:
    """Build the suite into ``out``."""
    from {{ cookiecutter.module }}.plugin import build_suite

    build_suite(out, n=n, seed=seed)
    return out


@hookimpl
def refig_suites():
    yield SuiteRecord(name="{{ cookiecutter.name }}", description={{ cookiecutter.description | jsonify }},
                      factory=lambda **_: build, command=build, families={"figure-to-slide"})
