"""Warm interpreters: the same verdicts as cold runs, the reset between programs, the deadline."""

from __future__ import annotations

import shutil
from types import ModuleType

import pytest
from refig_family_figure_to_code.execution import Limits
from refig_family_figure_to_code.warm import WarmInterpreter

TOOL = {"python": "python3", "r": "Rscript", "matlab": "octave"}
#: A program that defines a name, then one that uses it: the reset must make the second fail.
LEAK = {
    "python": ("leaked = 1\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\n",
               "import matplotlib.pyplot as plt\nplt.plot([leaked, 2])\n"),
    "r": ("leaked <- 1\nplot(1:2)\n", "plot(c(leaked, 2))\n"),
    "matlab": ("leaked = 1;\nfigure;\nplot(1:2);\n", "figure;\nplot([leaked 2]);\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("language", ["python", "r", "matlab"])
def test_warm_interpreter_gives_cold_verdicts_resets_and_survives_a_timeout(
        language: str, kit: ModuleType) -> None:
    if language != "python" and shutil.which(TOOL[language]) is None:
        pytest.skip(f"{TOOL[language]} is not installed")
    with WarmInterpreter(language, Limits(deadline_s=4)) as warm:
        assert warm.execute(kit.REFERENCE[language]).ok
        assert warm.execute(kit.SYNTAX_ERROR[language]).error.kind == "syntax_error"
        assert warm.execute(kit.RUNTIME_ERROR[language]).error.kind == "runtime_error"
        assert warm.execute(kit.NO_IMAGE[language]).error.kind == "no_image"
        first, second = LEAK[language]
        assert warm.execute(first).ok
        leaked = warm.execute(second)
        assert leaked.error is not None and leaked.error.kind == "runtime_error"
        assert "leaked" in leaked.error.message
        assert warm.execute(kit.LOOP_FOREVER[language]).error.kind == "timeout"
        again = warm.execute(kit.REFERENCE[language])  # restarted (or, Python, never stopped)
        assert again.ok, again.log.decode()


@pytest.mark.slow
@pytest.mark.parametrize("language", ["python", "r", "matlab"])
def test_a_fresh_interpreters_loading_is_not_its_first_programs_time(
        language: str, kit: ModuleType) -> None:
    # The interpreter says when it has loaded (matplotlib, R's graphics, Octave) and only then
    # does the first program's deadline start: loading took 2 to 10 s here under load, and with
    # it counted, a 1 s deadline failed every first program as a timeout.
    if language != "python" and shutil.which(TOOL[language]) is None:
        pytest.skip(f"{TOOL[language]} is not installed")
    with WarmInterpreter(language, Limits(deadline_s=1)) as warm:
        first = warm.execute(kit.NO_IMAGE[language])  # quick: it ends with no_image, not timeout
        assert first.error is not None and first.error.kind == "no_image", first.log.decode()
