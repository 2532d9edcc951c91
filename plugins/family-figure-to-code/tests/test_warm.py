"""Warm interpreters: the same verdicts as cold runs, the reset between programs, the deadline."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType

import pytest
from refig_family_figure_to_code.capture import FIGCODEBENCH
from refig_family_figure_to_code.execution import Limits, execute
from refig_family_figure_to_code.languages import Language
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


#: Programs under the release's protocol, each with the data file it may read.
RELEASE = {
    "python": ("import csv\nimport matplotlib.pyplot as plt\nrows = list(csv.reader(open("
               "'data.csv')))[1:]\nplt.bar([r[0] for r in rows], [float(r[1]) for r in rows], "
               "color='tab:green')\nplt.title('Counts')\nplt.savefig('own.png')\nplt.show()\n"),
    "r": ("library(ggplot2)\nd <- read.csv('data.csv')\nggplot(d, aes(label, value)) + "
          "geom_col(fill = 'steelblue') + ggtitle('Counts') + theme_minimal()\n"),
    "matlab": ("d = csvread('data.csv', 1, 1);\nbar(d, 'FaceColor', [0.2 0.6 0.3]);\n"
               "title('Counts');\nset(gca, 'XTickLabel', {'alpha', 'beta', 'gamma'});\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("language", ["python", "r", "matlab"])
def test_a_forked_server_captures_by_the_release_protocol_as_a_cold_run_does(
        language: str, tmp_path: Path) -> None:
    if shutil.which(TOOL[language]) is None:
        pytest.skip(f"{TOOL[language]} is not installed")
    data = tmp_path / "data.csv"
    data.write_text("label,value\nalpha,3\nbeta,5\ngamma,2\n")
    cold = execute(RELEASE[language], Language.parse(language), inputs={"data.csv": data},
                   protocol=FIGCODEBENCH)
    with WarmInterpreter(language) as warm:
        forked = warm.execute(RELEASE[language], inputs={"data.csv": data},
                              protocol=FIGCODEBENCH)
    assert cold.ok and forked.ok, forked.log.decode()
    assert forked.png == cold.png  # the same pixels, the same bytes


#: Programs run one after the other in one warm server, each with the error kind it must end
#: with (None: it draws) and what its log must say. A fork that ends R itself (quit()) removes
#: the session's tempdir on its way out, which the next program's tempfile() needs, and cannot
#: report its status (its image counts); one that exits Octave ends only itself, with no figure
#: printed, as a cold run that exits makes none; a global an Octave program sets is gone for the
#: next (the unforked server's function workspaces kept it); a program writing the server's
#: answer to its standard output does not end its own job early; and the ggplot R's server drew
#: before forking (to load it) leaves nothing a program can see.
ESCAPES = {
    "r": (("plot(1:3)\nquit(save = 'no')\n", None, b"ended R itself"),
          ("f <- tempfile()\nwriteLines('a', f)\nplot(1:2)\n", None, b""),
          ("system('printf \"REFIG-DONE\\\\t0\\\\n\"')\nSys.sleep(1)\nplot(1:3)\n", None, b""),
          ("stopifnot(!('package:ggplot2' %in% search()), is.null(ggplot2::last_plot()), "
           "!exists('.Random.seed'), length(dev.list()) == 1)\nplot(1:2)\n", None, b"")),
    "matlab": (("plot(1:3);\nexit(0);\n", "no_image", b""),
               ("global kept\nkept = 5;\nplot(1:2);\n", None, b""),
               ("global kept\nassert(isempty(kept));\nplot(1:2);\n", None, b""),
               ("system('printf \"REFIG-DONE\\\\t0\\\\n\"');\npause(1);\nplot(1:3);\n", None,
                b"")),
}


@pytest.mark.slow
@pytest.mark.parametrize("language", list(ESCAPES))
def test_a_program_cannot_end_the_server_or_speak_for_it(language: str) -> None:
    if shutil.which(TOOL[language]) is None:
        pytest.skip(f"{TOOL[language]} is not installed")
    with WarmInterpreter(language, Limits(deadline_s=30)) as warm:
        for program, kind, said in ESCAPES[language]:
            result = warm.execute(program, protocol=FIGCODEBENCH)
            assert (result.error.kind if result.error else None) == kind, result.log.decode()
            assert said in result.log
