"""Registers the `mmos` jury, its position-bias probe `mmos-swapped` and the `code-metrics`
proxy; litellm is imported only when a jury is built."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from refig.plugin import JudgeRecord, UsageError, hookimpl

FIGURE_TO_CODE = "figure-to-code"

#: Where the jury's models come from when ``--judge mmos`` names none.
MODELS_ENV = "REFIG_MMOS_MODELS"


def _jury(argument: str | None, options: dict[str, Any], *, swapped: bool = False,
          with_program: bool = False) -> Any:
    from refig_judge_rubric.judge import build_judge

    from refig_judge_mmos.jury import MEMBER_DEFAULTS, MmosJury

    listed = argument or options.pop("models", None) or os.environ.get(MODELS_ENV, "")
    models = [m.strip() for m in str(listed).split(",") if m.strip()]
    if not models:
        raise UsageError(
            "the MMOS jury needs its models",
            fix="write --judge mmos:MODEL1,MODEL2,MODEL3 (litellm names, e.g. "
            f"openai/gpt-4o,anthropic/claude-sonnet-4-5,gemini/gemini-2.5-pro) or set {MODELS_ENV}",
        )
    members = [(m, build_judge(f"mmos/{m}", dict(options), {**MEMBER_DEFAULTS, "model": m}))
               for m in models]
    name = "mmos-swapped" if swapped else "mmos-with-program" if with_program else "mmos"
    return MmosJury(name, members, swapped=swapped, with_program=with_program)


def _mmos(argument: str | None = None, **options: Any) -> Any:
    return _jury(argument, options)


def _mmos_swapped(argument: str | None = None, **options: Any) -> Any:
    return _jury(argument, options, swapped=True)


def _mmos_with_program(argument: str | None = None, **options: Any) -> Any:
    return _jury(argument, options, with_program=True)


def _proxy(argument: str | None = None, **options: Any) -> Any:
    from refig_judge_mmos.proxy import CodeMetricsProxy

    return CodeMetricsProxy()


@hookimpl
def refig_judges() -> Iterator[JudgeRecord]:
    code = frozenset({FIGURE_TO_CODE})
    yield JudgeRecord(
        name="mmos",
        description="FigCodeBench's MMOS jury: litellm judges score five criteria of 20 from "
        "the two images (reference first, temperature 0); MMOS is the mean of their totals "
        "(--judge mmos:M1,M2,M3).",
        factory=_mmos, families=code, accepts_argument=True,
    )
    yield JudgeRecord(
        name="mmos-with-program",
        description="refig's variant of the MMOS jury that also reads the generated program "
        "(not the benchmark's MMOS).",
        factory=_mmos_with_program, families=code, accepts_argument=True,
    )
    yield JudgeRecord(
        name="mmos-swapped",
        description="The MMOS jury with the generated image shown first: the position-bias "
        "probe (the report gives the mean shift against `mmos`).",
        factory=_mmos_swapped, families=code, accepts_argument=True,
    )
    yield JudgeRecord(
        name="code-metrics",
        description="Offline proxy of the MMOS criteria from code and image metrics (proxy).",
        factory=_proxy, families=code,
    )
