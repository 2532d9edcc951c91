"""LaTeX's warm path: xelatex forked where a program's shared preamble ends gives the cold run's
images and verdicts, one server per preamble, and a preamble that fails runs cold."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType

import pytest
from refig.plugin import RenderJob, Task
from refig_family_figure_to_code import texfork
from refig_family_figure_to_code.execution import Execution, Limits
from refig_family_figure_to_code.realiser import ProgramRenderer
from refig_family_figure_to_code.texfork import split
from refig_family_figure_to_code.warm import WarmInterpreter

HEAD = "\\documentclass[tikz,border=4pt]{standalone}\n\\usepackage{pgfplots}\n"


def test_only_whole_top_level_declarations_are_shared() -> None:
    program = (HEAD + "% a comment\n\n\\usetikzlibrary{arrows.meta, positioning}\n"
               "\\pgfplotsset{compat=1.18}\n\\definecolor{main}{HTML}{FF0000}\n"
               "\\begin{document}\nx\n\\end{document}\n")
    cut = split(program)
    assert cut is not None
    assert cut.shared == program[:program.index("\\definecolor")]
    assert cut.rest == "%\n" * 6 + program[program.index("\\definecolor"):]
    assert len(cut.rest.splitlines()) == len(program.splitlines())  # the same line numbers
    # an argument spanning lines, two commands on a line, a brace or a macro in an argument:
    # TeX may not be at the top level after them, so the shared lines stop before
    for line in ("\\pgfplotsset{\n", "\\usepackage{tikz}\\begin{document}\n",
                 "\\usepackage[x={a}]{tikz}\n", "\\usepackage{\\foo}\n",
                 "\\pgfplotsset{compat=1.18, width=5cm}\n"):
        cut = split(HEAD + line + "\\begin{document}x\\end{document}\n")
        assert cut is not None and cut.shared == HEAD, line
    assert split("\\usepackage{tikz}\n\\documentclass{article}\n") is None  # class first
    assert split("\ufeff" + HEAD) is None  # a byte-order mark: not a bare \documentclass line
    assert split("\\documentclass{article}") is None  # a line without its end is not whole


def _jobs(tmp_path: Path, programs: dict[str, str]) -> list[RenderJob]:
    task = Task(id="t", family="figure-to-code", params={"language": "latex",
                                                         "capture": "figcodebench"})
    jobs = []
    for name, text in programs.items():
        path = tmp_path / f"{name}.tex"
        path.write_text(text)
        jobs.append(RenderJob(path=path, task=task))
    return jobs


@pytest.mark.slow
def test_forked_xelatex_gives_the_cold_runs_images_and_verdicts(
        tmp_path: Path, kit: ModuleType) -> None:
    if shutil.which("xelatex") is None or texfork.library() is None:
        pytest.skip("xelatex or a C compiler is not installed")
    programs = {
        "reference": kit.REFERENCE["latex"],
        "tikz": HEAD + "\\usetikzlibrary{positioning}\n\\begin{document}\n\\begin{tikzpicture}"
                "\\node[draw, fill=orange!30] (a) {In};\\node[draw, right=of a] (b) {Out};"
                "\\draw[->] (a) -- (b);\\end{tikzpicture}\n\\end{document}\n",
        # a global definition in one document must not reach the next one of its server
        "leak": HEAD + "\\begin{document}\n\\gdef\\leaked{1}\\tikz\\draw (0,0) -- (1,1);\n"
                "\\end{document}\n",
        "leaked": HEAD + "\\begin{document}\n\\leaked\\tikz\\draw (0,0) -- (1,1);\n"
                  "\\end{document}\n",
        # a document that reads its own file again sees the whole program, as cold
        "itself": HEAD + "\\begin{document}\n\\input{figure.tex}\n\\end{document}\n",
        "syntax": kit.SYNTAX_ERROR["latex"],
        "runtime": kit.RUNTIME_ERROR["latex"],
        # an error in the shared lines: the server never starts, the program runs cold
        "missing": "\\documentclass{standalone}\n\\usepackage{nosuchpackage}\n"
                   "\\begin{document}x\\end{document}\n",
    }
    cold = ProgramRenderer(deadline_s=60)
    warm = ProgramRenderer(deadline_s=60, warm=True)
    try:
        jobs = _jobs(tmp_path, programs)
        made = {name: (cold.run(job), warm.run(job)) for name, job in zip(programs, jobs,
                                                                           strict=True)}
        servers = {key[1] for key in warm._interpreters}
    finally:
        cold.close()
        warm.close()
    for name, (alone, forked) in made.items():
        assert isinstance(alone, Execution) and isinstance(forked, Execution)
        assert (alone.error and alone.error.kind) == (forked.error and forked.error.kind), name
        assert alone.png == forked.png, name  # the same pixels, the same bytes
    assert made["reference"][1].ok and made["tikz"][1].ok and made["leak"][1].ok
    assert made["leaked"][1].error is not None  # \leaked is undefined in its own fork
    assert made["missing"][1].error.kind == "toolchain_missing"
    assert "(warm)" in made["tikz"][1].toolchain and "(warm)" not in made["missing"][1].toolchain
    # six preambles started a server: at most four are kept, the oldest closed first (the
    # reference's, then tikz's), and the failing one is closed
    assert servers == {HEAD, "\\documentclass{standalone}\n",
                       "\\documentclass{standalone}\n\\usepackage{pgfplots}\n"}


@pytest.mark.slow
def test_a_document_past_its_deadline_ends_its_server_which_starts_again(kit: ModuleType) -> None:
    if shutil.which("xelatex") is None or texfork.library() is None:
        pytest.skip("xelatex or a C compiler is not installed")
    shared = "\\documentclass{standalone}\n"
    with WarmInterpreter("latex", Limits(deadline_s=4), shared=shared) as warm:
        assert warm.execute(kit.LOOP_FOREVER["latex"]).error.kind == "timeout"
        again = warm.execute(shared + "\\def\\x{drawn}\n\\begin{document}\\x\\end{document}\n")
        assert again.ok, again.log.decode()
        with pytest.raises(ValueError, match="preamble"):
            warm.execute("\\documentclass{article}\n\\begin{document}x\\end{document}\n")


@pytest.mark.slow
def test_without_a_c_compiler_latex_runs_cold(tmp_path: Path, kit: ModuleType,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("xelatex") is None:
        pytest.skip("xelatex is not installed")
    monkeypatch.setenv("REFIG_CACHE_DIR", str(tmp_path / "cache"))  # nothing compiled yet
    monkeypatch.setattr(texfork, "COMPILERS", ("refig-no-such-cc",))  # a machine without one
    renderer = ProgramRenderer(deadline_s=60, warm=True)
    try:
        assert texfork.library() is None
        ran = renderer.run(_jobs(tmp_path, {"reference": kit.REFERENCE["latex"]})[0])
    finally:
        renderer.close()
    assert isinstance(ran, Execution) and ran.ok and ran.toolchain == "xelatex"


def test_the_library_is_compiled_once_into_the_cache(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    if not any(map(shutil.which, texfork.COMPILERS)):
        pytest.skip("no C compiler")
    monkeypatch.setenv("REFIG_CACHE_DIR", str(tmp_path))
    made = texfork.library()
    assert made is not None and made.is_relative_to(tmp_path / "texfork")
    assert made.stat().st_mode & 0o777 == 0o555
    assert texfork.library() == made and list(made.parent.iterdir()) == [made]
