"""Programs per minute per language, warm interpreter against one cold process per program;
and the code metrics over 1,000 programs, refig's scorer against a plain loop. One run.

Execution: the `code-sample` reference programs (seeded, all seven categories), each run in the
sandbox. Cold: :func:`execute`, one fresh interpreter per program (the realiser's default).
Warm: one :class:`WarmInterpreter` per language (Python's and R's fork servers, Octave, and
xelatex forked after the programs' shared preamble), reset between programs.

Copy check: a reference pass gives each program its figure, which it reproduces, so every
reference image looks like an input (:mod:`refig_family_figure_to_code.copies`). Without proof
that the program never opened the figure it runs a second time with a decoy; with the inotify
proof (:mod:`refig_family_figure_to_code.input_watch`) it runs once. The same programs, under the
``figcodebench`` protocol, each given its own image as the figure, alternating program by program
in one run: without a figure, with the figure and the proof withheld (the decoy run, as before),
and with the figure and the proof; wall seconds and sandboxed runs counted; Python also in its
warm interpreter (the decoy run of a warm program is a fresh cold process).

Bytecode: CPU seconds of a cold sandboxed Python program (``/usr/bin/time`` in the sandbox) with
the environment's packages compiled to bytecode, as set-up leaves them (``uv sync
--compile-bytecode``), against a fresh clone's state before that fix (no bytecode in
site-packages; the sandbox cannot write any): ``-X pycache_prefix`` points the program at a
folder holding only the standard library's bytecode, compiled into it first. Alternating.

Machine caches: the same programs run cold with this machine's caches hidden from the sandbox
(as before: fontconfig scans every font, xelatex inflates its gzip format) and shown read-only
(:mod:`refig_family_figure_to_code.machine_caches`), alternating program by program, under the
``figcodebench`` capture protocol (300 dpi); every image compared byte for byte. LaTeX adds
documents beyond `code-sample`'s pgfplots: plain text, TikZ, and fontspec with a system font.
Wall seconds of :func:`execute`, then CPU seconds of every language's toolchain the same way
(``/usr/bin/time`` inside the sandbox: bwrap's reaper loses its children's CPU) and of reading
its image in this process (LaTeX: the PDF's first page at 300 dpi).

Forked servers under the release's protocol: every language's programs (``figcodebench``,
300 dpi) run cold and in their warm server (a fresh fork of a loaded interpreter per program;
LaTeX's forked after its preamble), alternating program by program after one untimed run of
each; wall seconds a program (the reference pass's unit, sandbox and image reading included)
and every image compared byte for byte.

Two cores: the reference pass as the realiser runs it with ``warm=true`` (every language's warm
server), each program given its own image as the figure
(the copy check's proof at work), on two worker processes at once, each with its own renderer
and servers (started before the clock, as a pass of thousands of programs amortises them);
wall seconds for each language's programs, divided over them: what a program costs the pass on
two cores.

Encoding: each language's images under ``figcodebench`` (300 dpi) encoded as PNG the way
the realiser did (Pillow, zlib level 6, a filter chosen per row) and the way it does
(:func:`~refig_toolkit_imaging.bgr_png_bytes`: level 1, the Up filter), alternating, CPU
seconds; both decoded back to the same pixels.

Code metrics: ``--programs`` generated programs (mutations of the references: a changed
number, a dropped line, a renamed colour), ten per reference. The plain loop does what a
script calling the packages per pair does: learn the trivial n-grams from the references,
tokenise and parse both programs, every time. refig's scorer learns the n-grams once per
language and reads each reference once (:mod:`refig_metric_code.scoring`). Both give the same
numbers (checked).

    uv run python benchmarks/code_exec/run.py [--programs-per-language 14] [--programs 1000]
        [--section all|execution|copy-check|bytecode|caches|forked|two-cores|encode|metrics]
        [--json]
"""

from __future__ import annotations

import argparse
import compileall
import io
import json
import platform
import random
import re
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path
from typing import Any
from unittest import mock

from PIL import Image
from refig.plugin import RenderJob, Task, run_sandboxed
from refig_family_figure_to_code import execution as executing
from refig_family_figure_to_code import toolchains
from refig_family_figure_to_code.capture import FIGCODEBENCH
from refig_family_figure_to_code.execution import conclude, execute, prepare, program_env
from refig_family_figure_to_code.input_watch import InputWatch
from refig_family_figure_to_code.languages import Language
from refig_family_figure_to_code.realiser import ProgramRenderer
from refig_family_figure_to_code.sample.data import CATEGORIES, sample_data
from refig_family_figure_to_code.sample.programs import data_files, reference_program
from refig_family_figure_to_code.texfork import split
from refig_family_figure_to_code.warm import WARM_LANGUAGES, WarmInterpreter
from refig_metric_code.calls import api_f1, plotting_calls
from refig_metric_code.crystal import corpus_score, crystal_tokens, pair_counts, trivial_ngrams
from refig_metric_code.scoring import score_code
from refig_metric_code.syntax_tree import ast_similarity
from refig_toolkit_imaging import png_bytes, rgb_png_bytes


def corpus(language: Language, count: int, scratch: Path) -> list[tuple[str, dict[str, Path]]]:
    """``count`` reference programs of ``language`` with their data files on disk."""
    items = []
    for index in range(count):
        data = sample_data(CATEGORIES[index % len(CATEGORIES)], index // len(CATEGORIES))
        inputs = {}
        for name, content in data_files(data).items():
            path = scratch / f"{language}-{index}-{name}"
            path.write_bytes(content)
            inputs[name] = path
        items.append((reference_program(data, language), inputs))
    return items


def warm_server(language: Language, programs: list[tuple[str, dict[str, Path]]]
                ) -> WarmInterpreter:
    """The warm interpreter of ``language``; LaTeX's reads the preamble ``programs`` share
    (the `code-sample` programs share theirs)."""
    if language is not Language.LATEX:
        return WarmInterpreter(language)
    shared = {cut.shared for program, _ in programs if (cut := split(program)) is not None}
    if len(shared) != 1:
        raise SystemExit(f"the LaTeX programs share no one preamble: {len(shared)}")
    return WarmInterpreter(language, shared=shared.pop())


def per_minute(count: int, seconds: float) -> float:
    return 60.0 * count / seconds if seconds else float("nan")


def execution(per_language: int) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for language in Language:
            programs = corpus(language, per_language, Path(scratch))
            started = time.monotonic()
            cold_ok = sum(execute(p, language, inputs=i).ok for p, i in programs)
            cold = time.monotonic() - started
            row = {"programs": len(programs), "cold_ok": cold_ok,
                   "cold_per_minute": per_minute(len(programs), cold)}
            if language in WARM_LANGUAGES:
                started = time.monotonic()
                with warm_server(language, programs) as warm:
                    warm_ok = sum(warm.execute(p, inputs=i).ok for p, i in programs)
                seconds = time.monotonic() - started
                row |= {"warm_ok": warm_ok, "warm_per_minute": per_minute(len(programs), seconds),
                        "speedup": cold / seconds}
            results[language.value] = row
            print(f"{language.value:7s} {json.dumps(row)}", flush=True)
    return results


@contextmanager
def counted_runs() -> Iterator[list[int]]:
    """Counts the fresh sandboxed runs :func:`execute` makes while open."""
    runs: list[int] = []
    real = executing.run_sandboxed

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        runs.append(1)
        return real(*args, **kwargs)

    with mock.patch.object(executing, "run_sandboxed", counting):
        yield runs


@contextmanager
def proof(given: bool) -> Iterator[None]:
    """The inotify proof as it is (``given``) or withheld, as on a machine without it."""
    if given:
        yield
        return
    with mock.patch.object(InputWatch, "start", return_value=None):
        yield


def copy_check(per_language: int) -> dict[str, dict[str, float]]:
    """Wall seconds and runs of a reference pass: no figure, the figure without the proof
    (a decoy run), the figure with the proof; alternating, one run."""
    results: dict[str, dict[str, float]] = {}
    arms = ("no_figure", "decoy_run", "proof")
    with tempfile.TemporaryDirectory() as scratch:
        for language in Language:
            programs = corpus(language, per_language, Path(scratch))
            figured = []
            for index, (program, inputs) in enumerate(programs):
                made = execute(program, language, inputs=inputs, protocol=FIGCODEBENCH)
                figure = Path(scratch) / f"{language}-{index}-figure.png"
                figure.write_bytes(made.png or b"")
                figured.append((program, inputs, {**inputs, "figure.png": figure}))
            seconds = dict.fromkeys(arms, 0.0)
            runs = dict.fromkeys(arms, 0)
            flagged = dict.fromkeys(arms, 0)
            for program, plain, with_figure in figured:
                for arm in arms:
                    given = plain if arm == "no_figure" else with_figure
                    with proof(arm != "decoy_run"), counted_runs() as count:
                        started = time.monotonic()
                        done = execute(program, language, inputs=given, protocol=FIGCODEBENCH)
                        seconds[arm] += time.monotonic() - started
                    runs[arm] += len(count)
                    flagged[arm] += done.copied_input is not None
            row = {"programs": len(figured),
                   **{f"{arm}_s": seconds[arm] for arm in arms},
                   **{f"{arm}_runs": runs[arm] for arm in arms},
                   **{f"{arm}_flagged": flagged[arm] for arm in arms},
                   "decoy_run_over_no_figure": seconds["decoy_run"] / seconds["no_figure"],
                   "proof_over_no_figure": seconds["proof"] / seconds["no_figure"],
                   "decoy_run_over_proof": seconds["decoy_run"] / seconds["proof"]}
            if language is Language.PYTHON:
                row |= warm_copy_check(figured)
            results[language.value] = row
            print(f"copy-check {language.value:7s} {json.dumps(row)}", flush=True)
    return results


def warm_copy_check(figured: list[tuple[str, dict[str, Path], dict[str, Path]]],
                    ) -> dict[str, float]:
    """The same in Python's warm interpreter: with the figure, the proof withheld and given."""
    seconds = {False: 0.0, True: 0.0}
    fresh = {False: 0, True: 0}
    for given in (False, True):
        with proof(given), WarmInterpreter(Language.PYTHON) as warm, counted_runs() as count:
            warm.execute(figured[0][0], protocol=FIGCODEBENCH)  # loaded before the clock
            started = time.monotonic()
            for program, _, with_figure in figured:
                warm.execute(program, inputs=with_figure, protocol=FIGCODEBENCH)
            seconds[given] = time.monotonic() - started
            fresh[given] = len(count)
    return {"warm_decoy_run_s": seconds[False], "warm_proof_s": seconds[True],
            "warm_decoy_runs_fresh": fresh[False], "warm_proof_runs_fresh": fresh[True],
            "warm_decoy_run_over_proof": seconds[False] / seconds[True]}


def bytecode(per_language: int) -> dict[str, float]:
    """CPU seconds a cold Python program with site-packages' bytecode against without it."""
    site = Path(sysconfig.get_paths()["purelib"])
    sources = sum(1 for _ in site.rglob("*.py"))
    compiled = sum(1 for _ in site.rglob("__pycache__/*.pyc"))
    cpu = {"without": 0.0, "with": 0.0}
    with tempfile.TemporaryDirectory(prefix="refig-pycache-") as prefix:
        # the standard library's bytecode alone, where PYTHONPYCACHEPREFIX makes Python look
        stdlib = Path(sysconfig.get_paths()["stdlib"])
        with mock.patch.object(sys, "pycache_prefix", prefix):
            compileall.compile_dir(stdlib, quiet=2, workers=1,
                                   rx=re.compile(r"/(test|tests|idlelib|tkinter|turtledemo)/"))
        with tempfile.TemporaryDirectory() as scratch:
            programs = corpus(Language.PYTHON, per_language, Path(scratch))
            for program, inputs in programs:
                for arm in ("without", "with"):
                    # -X, not PYTHONPYCACHEPREFIX: the driver runs isolated (-I), which ignores
                    # the environment's PYTHON* variables
                    options = ("-X", f"pycache_prefix={prefix}") if arm == "without" else ()
                    seconds, _ = _one_cpu(program, Language.PYTHON, inputs, True, options,
                                          (Path(prefix),) if options else ())
                    cpu[arm] += seconds
    count = len(programs)
    row = {"programs": count, "site_packages_py": sources, "site_packages_pyc": compiled,
           "without_cpu_s": cpu["without"] / count, "with_cpu_s": cpu["with"] / count,
           "ratio": cpu["without"] / cpu["with"]}
    print(f"bytecode {json.dumps(row)}", flush=True)
    return row


#: LaTeX documents unlike `code-sample`'s pgfplots: text only, TikZ, fontspec with a system font.
LATEX_EXTRA = (
    "\\documentclass{article}\n\\pagestyle{empty}\n\\begin{document}\n"
    "Quartz $\\int_0^1 x^2\\,dx = \\frac13$ and \\textbf{bold}.\n\\end{document}\n",
    "\\documentclass[tikz,border=2pt]{standalone}\n\\usetikzlibrary{arrows.meta,positioning}\n"
    "\\begin{document}\n\\begin{tikzpicture}[node distance=2cm]\n"
    "\\node[draw,fill=blue!20] (a) {Input};\n\\node[draw,circle,right=of a] (b) {$f$};\n"
    "\\draw[-{Stealth}] (a) -- (b);\n\\end{tikzpicture}\n\\end{document}\n",
    "\\documentclass[border=3pt]{standalone}\n\\usepackage{fontspec}\n"
    "\\setmainfont{DejaVu Sans}\n\\usepackage{tikz}\n\\begin{document}\n"
    "\\begin{tikzpicture}\\draw[red,thick] (0,0) circle (1);"
    "\\node at (0,0) {Ember 42};\\end{tikzpicture}\n\\end{document}\n",
)


def caches(per_language: int) -> dict[str, dict[str, float]]:
    """Cold seconds with the machine's caches hidden and shown, alternating; equal images."""
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for language in (Language.LATEX, Language.R, Language.MATLAB):
            programs = corpus(language, per_language, Path(scratch))
            if language is Language.LATEX:
                programs += [(text, {}) for text in LATEX_EXTRA]
            seconds = {False: 0.0, True: 0.0}
            same = made = 0
            for program, inputs in programs:
                images = {}
                for shared in (False, True):
                    started = time.monotonic()
                    images[shared] = execute(program, language, inputs=inputs,
                                             protocol=FIGCODEBENCH, shared_caches=shared).png
                    seconds[shared] += time.monotonic() - started
                made += images[True] is not None
                same += images[False] == images[True]
            row = {"programs": len(programs), "made_image": made, "identical_png": same,
                   "hidden_s": seconds[False], "shown_s": seconds[True],
                   "hidden_per_minute": per_minute(len(programs), seconds[False]),
                   "shown_per_minute": per_minute(len(programs), seconds[True]),
                   "ratio": seconds[False] / seconds[True]}
            results[language.value] = row
            print(f"caches {language.value:7s} {json.dumps(row)}", flush=True)
    return results


def forked(per_language: int) -> dict[str, dict[str, float]]:
    """Wall seconds a program under ``figcodebench``: cold and warm, alternating; the images
    compared byte for byte. A program is the pass's unit: what one core spends on it, the
    sandbox, the toolchain and reading its image included."""
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch, ExitStack() as servers:
        for language in Language:
            programs = corpus(language, per_language + 1, Path(scratch))
            warm = servers.enter_context(warm_server(language, programs))
            runs = {"cold": partial(execute, language=language, protocol=FIGCODEBENCH),
                    "warm": partial(warm.execute, protocol=FIGCODEBENCH)}
            for run in runs.values():  # untimed: a server's start, the disk's cache
                run(programs[0][0], inputs=programs[0][1])
            seconds = dict.fromkeys(runs, 0.0)
            same = made = 0
            for program, inputs in programs[1:]:
                images = {arm: b"" for arm in runs}
                for arm, run in runs.items():
                    started = time.monotonic()
                    images[arm] = run(program, inputs=inputs).png
                    seconds[arm] += time.monotonic() - started
                made += images[arm] is not None
                same += len(set(images.values())) == 1
            count = len(programs) - 1
            row = {"programs": count, "made_image": made,
                   **{f"{arm}_s": total / count for arm, total in seconds.items()},
                   "identical_png": same, "speedup": seconds["cold"] / seconds["warm"]}
            results[language.value] = row
            print(f"forked {language.value:7s} {json.dumps(row)}", flush=True)
    return results


def _worker(language: str, items: list[tuple[str, dict[str, str]]], start: Any) -> float:
    """Run ``items`` through a warm renderer after ``start`` (a barrier); the seconds taken."""
    renderer = ProgramRenderer(warm=True)
    task = Task(id="t", family="figure-to-code",
                params={"language": language, "capture": FIGCODEBENCH})
    suffix = {"python": "py", "r": "R", "matlab": "m", "latex": "tex"}[language]
    try:
        jobs = []
        with tempfile.TemporaryDirectory() as scratch:
            for index, (program, inputs) in enumerate(items):
                path = Path(scratch) / f"program-{index}.{suffix}"
                path.write_text(program)
                jobs.append(RenderJob(path=path, task=task,
                                      inputs={role: Path(p) for role, p in inputs.items()}))
            renderer.run(jobs[0])  # the servers start before the clock
            start.wait()
            started = time.monotonic()
            for job in jobs[1:]:
                renderer.run(job)
            return time.monotonic() - started
    finally:
        renderer.close()


def two_cores(per_language: int) -> dict[str, dict[str, float]]:
    """Wall seconds a program of the reference pass on two workers at once."""
    import multiprocessing

    results: dict[str, dict[str, float]] = {}
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as scratch, context.Manager() as manager:
        for language in Language:
            items = []
            for index, (program, inputs) in enumerate(corpus(language, per_language + 2,
                                                             Path(scratch))):
                made = execute(program, language, inputs=inputs, protocol=FIGCODEBENCH)
                figure = Path(scratch) / f"{language}-{index}-figure.png"
                figure.write_bytes(made.png or b"")
                items.append((program, {"figure": str(figure),
                                        **{f"data/{n}": str(p) for n, p in inputs.items()}}))
            halves = [items[0::2], items[1::2]]
            start = manager.Barrier(2)
            with ProcessPoolExecutor(2, mp_context=context) as pool:
                seconds = list(pool.map(_worker, [language.value] * 2, halves, [start] * 2))
            timed = sum(len(half) - 1 for half in halves)
            row = {"programs": timed, "wall_s": max(seconds),
                   "s_a_program_on_two_cores": max(seconds) / timed}
            results[language.value] = row
            print(f"two-cores {language.value:7s} {json.dumps(row)}", flush=True)
    return results


def encode(per_language: int, repeats: int = 3) -> dict[str, dict[str, float]]:
    """CPU seconds an image, Pillow's level 6 against the realiser's encoder; equal pixels."""
    results: dict[str, dict[str, float]] = {}
    encoders = {"pillow_level6": png_bytes, "opencv_level1_up": rgb_png_bytes}
    with tempfile.TemporaryDirectory() as scratch:
        for language in Language:
            images = [Image.open(io.BytesIO(made.png)).convert("RGB")
                      for program, inputs in corpus(language, per_language, Path(scratch))
                      if (made := execute(program, language, inputs=inputs,
                                          protocol=FIGCODEBENCH)).png is not None]
            cpu = dict.fromkeys(encoders, 0.0)
            size = dict.fromkeys(encoders, 0)
            for image in images * repeats:
                for name, encoder in encoders.items():
                    started = time.process_time()
                    data = encoder(image)
                    cpu[name] += time.process_time() - started
                    size[name] += len(data)
                    assert Image.open(io.BytesIO(data)).convert("RGB").tobytes() == image.tobytes()
            count = len(images) * repeats
            row = {"images": len(images),
                   "megapixels": sum(i.width * i.height for i in images) / len(images) / 1e6,
                   **{f"{name}_cpu_s": cpu[name] / count for name in encoders},
                   **{f"{name}_kb": size[name] / count / 1024 for name in encoders},
                   "ratio": cpu["pillow_level6"] / cpu["opencv_level1_up"]}
            results[language.value] = row
            print(f"encode {language.value:7s} {json.dumps(row)}", flush=True)
    return results


def toolchain_cpu(per_language: int) -> dict[str, dict[str, float]]:
    """CPU seconds a program under the ``figcodebench`` protocol, caches hidden and shown,
    alternating: the sandboxed toolchain's (``/usr/bin/time`` inside the sandbox sees what
    bwrap's reaper loses; xdvipdfmx included) and this process's reading of its image (for
    LaTeX the PDF's first page at 300 dpi), as :func:`execute` does both."""
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for language in Language:
            programs = corpus(language, per_language, Path(scratch))
            if language is Language.LATEX:
                programs += [(text, {}) for text in LATEX_EXTRA]
            cpu = {False: 0.0, True: 0.0}
            reading = 0.0
            for program, inputs in programs:
                for shared in (False, True):
                    seconds, read = _one_cpu(program, language, inputs, shared)
                    cpu[shared] += seconds
                    reading += read / 2
            count = len(programs)
            row = {"programs": count, "hidden_cpu_s": cpu[False] / count,
                   "shown_cpu_s": cpu[True] / count, "ratio": cpu[False] / cpu[True],
                   "image_cpu_s": reading / count}
            results[language.value] = row
            print(f"cpu {language.value:7s} {json.dumps(row)}", flush=True)
    return results


def _one_cpu(program: str, language: Language, inputs: dict[str, Path], shared: bool,
             options: tuple[str, ...] = (), binds: tuple[Path, ...] = ()) -> tuple[float, float]:
    """The toolchain's CPU seconds for one run, and this process's for reading its image;
    ``options`` go to the interpreter before its own arguments, ``binds`` are shown read-only."""
    with tempfile.TemporaryDirectory(prefix="refig-program-") as work:
        prepared = prepare(Path(work), program, language, inputs, FIGCODEBENCH)
        launch = toolchains.launch(language, prepared.workdir, 640, 480, FIGCODEBENCH, shared)
        argv = [launch.argv[0], *options, *launch.argv[1:]]
        result = run_sandboxed(["/usr/bin/time", "-f", "refig-cpu %U %S", *argv],
                               workdir=prepared.workdir, deadline_s=120, memory_mb=4096,
                               env=program_env(prepared.workdir, launch.env),
                               binds=(*launch.binds, *binds))
        timing = [line for line in result.stderr.decode().splitlines()
                  if line.startswith("refig-cpu ")][-1].split()
        started = time.process_time()
        made = conclude(prepared, exit_code=result.exit_code, timed_out=result.timed_out,
                        output=result.stdout + result.stderr, seconds=result.seconds,
                        toolchain=launch.toolchain, width=640, deadline_s=120,
                        protocol=FIGCODEBENCH)
        read = time.process_time() - started
        if not made.ok:
            raise SystemExit(f"{language}: {made.error}")
    return float(timing[1]) + float(timing[2]), read


def mutate(source: str, rng: random.Random) -> str:
    lines = source.splitlines()
    for _ in range(rng.randint(1, 3)):
        choice = rng.random()
        index = rng.randrange(len(lines))
        if choice < 0.4 and len(lines) > 3:
            del lines[index]
        elif choice < 0.7:
            lines[index] = lines[index].replace("1", str(rng.randint(2, 9)), 1)
        else:
            lines.insert(index, lines[rng.randrange(len(lines))])
    return "\n".join(lines) + "\n"


def plain(reference: str, generated: str, language: Language, references: list[str]) -> tuple:
    trivial = trivial_ngrams([crystal_tokens(r, language) for r in references])
    counts = pair_counts(crystal_tokens(reference, language), crystal_tokens(generated, language),
                         trivial)
    return (corpus_score([counts]),
            ast_similarity(reference, generated, language),
            api_f1(plotting_calls(reference, language), plotting_calls(generated, language)))


def metrics(total: int) -> dict[str, float]:
    rng = random.Random(0)
    per_language = max(1, total // (4 * 10))
    jobs: list[tuple[Language, str, str]] = []
    references: dict[Language, list[str]] = {}
    for language in Language:
        refs = [reference_program(sample_data(CATEGORIES[i % 7], i // 7), language)
                for i in range(per_language)]
        references[language] = refs
        jobs += [(language, r, mutate(r, rng)) for r in refs for _ in range(10)]
    jobs = jobs[:total]
    started = time.monotonic()
    naive = [plain(r, g, lang, references[lang]) for lang, r, g in jobs]
    naive_s = time.monotonic() - started
    started = time.monotonic()
    learned = {lang: trivial_ngrams([crystal_tokens(r, lang) for r in refs])
               for lang, refs in references.items()}
    fast = [score_code(r, g, lang, learned[lang]) for lang, r, g in jobs]
    fast_s = time.monotonic() - started
    same = all(abs(a[0] - b.crystalbleu_sentence) < 1e-12 and abs(a[1] - b.ast) < 1e-12
               and abs(a[2] - b.api_f1) < 1e-12 for a, b in zip(naive, fast, strict=True))
    row = {"programs": len(jobs), "plain_seconds": naive_s, "refig_seconds": fast_s,
           "plain_per_second": len(jobs) / naive_s, "refig_per_second": len(jobs) / fast_s,
           "speedup": naive_s / fast_s, "same_values": same}
    print(f"metrics {json.dumps(row)}", flush=True)
    return row


#: Each section: the report's keys and what fills them, given the command's arguments.
SECTIONS: dict[str, tuple[tuple[str, Callable[[argparse.Namespace], object]], ...]] = {
    "execution": (("execution", lambda a: execution(a.programs_per_language)),),
    "copy-check": (("copy_check", lambda a: copy_check(a.programs_per_language)),),
    "bytecode": (("bytecode", lambda a: bytecode(a.programs_per_language)),),
    "caches": (("caches", lambda a: caches(a.programs_per_language)),
               ("cpu", lambda a: toolchain_cpu(a.programs_per_language))),
    "forked": (("forked", lambda a: forked(a.programs_per_language)),),
    "two-cores": (("two_cores", lambda a: two_cores(a.programs_per_language)),),
    "encode": (("encode", lambda a: encode(a.programs_per_language)),),
    "metrics": (("metrics", lambda a: metrics(a.programs)),),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs-per-language", type=int, default=14)
    parser.add_argument("--programs", type=int, default=1000)
    parser.add_argument("--section", default="all", choices=("all", *SECTIONS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    print(f"machine: {platform.platform()}, python {platform.python_version()}")
    report: dict[str, object] = {}
    for name, parts in SECTIONS.items():
        if args.section in ("all", name):
            for key, make in parts:
                report[key] = make(args)
    if args.json:
        print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
