"""Code metrics against FigCodeBench's definitions (crystalbleu, nltk, Pygments, ast) on
programs the tests write."""

from __future__ import annotations

import ast
import re
import warnings
from collections import Counter

import pytest
from crystalbleu import corpus_bleu
from nltk.translate.bleu_score import SmoothingFunction
from nltk.util import ngrams
from refig_metric_code.calls import api_f1, plotting_calls
from refig_metric_code.crystal import corpus_score, covered_orders, crystal_tokens, trivial_ngrams
from refig_metric_code.fcf import fcf, q_delta_e
from refig_metric_code.scoring import score_code
from refig_metric_code.smuggling import detect
from refig_metric_code.syntax_tree import ast_similarity, dice, syntax_tree

REFERENCES = [
    "import matplotlib.pyplot as plt\n# a comment\nplt.plot([1, 2, 3], [4, 5, 6])\n"
    "plt.title('Sales')\nplt.xlabel('Year')\n",
    "import matplotlib.pyplot as plt\nimport numpy as np\nx = np.arange(10)\n"
    "plt.bar(x, x ** 2, color='tab:blue')\nplt.ylabel('Square')\n",
    "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.scatter([1, 2], [3, 4])\n"
    "ax.set_title('Points')\nplt.show()\n",
]
CANDIDATE = ("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [4, 5, 7])\n"
             "plt.title('Sales')\nplt.grid(True)\nplt.savefig('out.png')\n")


def bench_tokens(source: str, suffix: str) -> list[str]:
    """The benchmark's tokens, written here from its definition: the lexer Pygments picks for
    the file name, comments and whitespace dropped, values split by its expression."""
    from pygments import lex
    from pygments.lexers import get_lexer_for_filename
    from pygments.token import Token

    out = []
    for kind, value in lex(source, get_lexer_for_filename("x" + suffix)):
        if kind in Token.Comment or kind in Token.Text.Whitespace:
            continue
        out.extend(re.findall(r"[A-Za-z_]\w*|\d+(?:\.\d+)?|[^\w\s]", value))
    return out


#: Hidden programs of the tests' own, per language: (references, generated ones).
PROGRAMS = {
    ".py": (REFERENCES, [CANDIDATE, REFERENCES[1].replace("Square", "Cube"), "plt.plot(1)\n"]),
    ".m": (["x = 1:10; % the x values\nplot(x, x.^2, 'r-');\ntitle('Growth');\n",
            "figure;\nbar([3 5 2]);\nxlabel('Group'); ylabel('Count');\n",
            "t = linspace(0, 1, 50);\nscatter(t, sin(t));\ngrid on\n"],
           ["x = 1:10;\nplot(x, x.^2, 'b--');\ntitle('Growth');\n",
            "bar([3 5 2 7]);\nxlabel('Group');\n", "scatter(1, 2);\n"]),
    ".R": (["library(ggplot2)\n# data\nggplot(df, aes(x, y)) + geom_point(colour = 'red')\n",
            "barplot(c(3, 5, 2), names.arg = c('a', 'b', 'c'))\ntitle('Counts')\n",
            "plot(1:10, (1:10)^2, type = 'l')\nlegend('topleft', 'sq')\n"],
           ["ggplot(df, aes(x, y)) + geom_line()\n", "barplot(c(3, 5))\n",
            "plot(1:10, type = 'l')\n"]),
    ".tex": (["\\begin{tikzpicture}% axes\n\\draw[->] (0,0) -- (2,0);\n\\node at (1,1) {A};\n"
              "\\end{tikzpicture}\n",
              "\\begin{tikzpicture}\\begin{axis}\\addplot coordinates {(0,1) (1,3)};"
              "\\end{axis}\\end{tikzpicture}\n"],
             ["\\begin{tikzpicture}\\draw (0,0) -- (2,0);\\end{tikzpicture}\n",
              "\\begin{tikzpicture}\\begin{axis}\\addplot coordinates {(0,1) (1,2)};"
              "\\end{axis}\\end{tikzpicture}\n"]),
}
LANGUAGE_OF = {".py": "python", ".m": "matlab", ".R": "r", ".tex": "latex"}


@pytest.mark.parametrize("suffix", list(PROGRAMS))
def test_tokens_are_the_benchmark_s(suffix: str) -> None:
    for source in [*PROGRAMS[suffix][0], *PROGRAMS[suffix][1]]:
        assert crystal_tokens(source, LANGUAGE_OF[suffix]) == bench_tokens(source, suffix)
    fenced = "```python\n" + REFERENCES[0] + "```\n"  # a fence around the program is removed
    assert crystal_tokens(fenced, "python") == bench_tokens(REFERENCES[0], ".py")
    # the benchmark lexes .m files with Pygments' Objective-C lexer: MATLAB comments stay
    assert "values" in crystal_tokens(PROGRAMS[".m"][0][0], "matlab")


def test_trivial_ngrams_count_each_reference_on_its_own() -> None:
    streams = [bench_tokens(r, ".py") for r in REFERENCES]
    expected: Counter[tuple] = Counter()
    for tokens in streams:  # n-grams never span two programs
        for n in range(1, 5):
            expected.update(ngrams(tokens, n))
    assert trivial_ngrams(streams, k=20) == dict(expected.most_common(20))
    spanning = (streams[0][-1], streams[1][0])
    joined = [t for s in streams for t in s]
    assert spanning in trivial_ngrams([joined], k=10_000)  # what concatenating would count
    assert spanning not in trivial_ngrams(streams, k=10_000)


@pytest.mark.parametrize("suffix", list(PROGRAMS))
def test_corpus_crystalbleu_equals_the_package_with_the_benchmark_s_settings(suffix: str) -> None:
    references, generated = PROGRAMS[suffix]
    refs = [bench_tokens(r, suffix) for r in references]
    hyps = [bench_tokens(g, suffix) for g in generated]
    ignored: Counter[tuple] = Counter()
    for tokens in refs:
        for n in range(1, 5):
            ignored.update(ngrams(tokens, n))
    trivial = dict(ignored.most_common(8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = corpus_bleu([[r] for r in refs], hyps, ignoring=trivial,
                               smoothing_function=SmoothingFunction().method3)
    language = LANGUAGE_OF[suffix]
    learned = trivial_ngrams([crystal_tokens(r, language) for r in references], k=8)
    assert learned == trivial
    scored = [score_code(r, g, language, learned)
              for r, g in zip(references, generated, strict=True)]
    assert corpus_score(s.counts for s in scored) == pytest.approx(expected, rel=1e-12)
    for r, g, s in zip(refs, hyps, scored, strict=True):  # one pair is its own corpus
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            alone = corpus_bleu([[r]], [g], ignoring=trivial,
                                smoothing_function=SmoothingFunction().method3)
        assert s.crystalbleu_sentence == pytest.approx(alone, rel=1e-12)
    assert corpus_score([]) is None


def test_an_ignore_list_covering_the_reference_is_flagged() -> None:
    streams = [crystal_tokens(r, "python") for r in REFERENCES]
    ref = streams[0]
    everything = trivial_ngrams(streams, k=500)  # three short programs: 500 is all of them
    assert covered_orders(ref, everything) == (1, 2, 3, 4)
    assert score_code(REFERENCES[0], CANDIDATE, "python", everything).covered == (1, 2, 3, 4)
    assert covered_orders(ref, trivial_ngrams(streams, k=10)) == ()
    only_unigrams = {(t,): 1 for t in ref}  # one order covered is enough to flag it
    assert covered_orders(ref, only_unigrams) == (1,)


def test_ast_similarity_is_multiset_dice_of_labels_and_productions() -> None:
    def bag(source: str) -> Counter[str]:
        nodes = list(ast.walk(ast.parse(source)))
        labels = Counter(type(n).__name__ for n in nodes)
        edges = Counter(f"{type(n).__name__}>{type(c).__name__}>" for n in nodes
                        for c in ast.iter_child_nodes(n))
        return labels + edges

    a, b = bag(REFERENCES[0]), bag(CANDIDATE)
    expected = 2 * sum((a & b).values()) / (sum(a.values()) + sum(b.values()))
    assert ast_similarity(REFERENCES[0], CANDIDATE, "python") == pytest.approx(expected)
    assert ast_similarity(REFERENCES[0], REFERENCES[0], "python") == 1.0
    assert ast_similarity(REFERENCES[0], "plt.plot(", "python") == 0.0
    assert dice(Counter(), Counter()) == 1.0


@pytest.mark.parametrize(("language", "source", "labels"), [
    ("r", "library(ggplot2)\nggplot(df, aes(x, y)) + geom_point()\n", {"call", "program"}),
    ("matlab", "x = 1:3;\nplot(x, x);\nhold on\n", {"function_call", "command"}),
    ("latex", "\\begin{tikzpicture}\\draw (0,0) -- (1,1);\\end{tikzpicture}",
     {"environment:tikzpicture", "macro:draw"}),
])
def test_other_languages_parse_through_their_grammars(language: str, source: str,
                                                      labels: set[str]) -> None:
    tree = syntax_tree(source, language)
    assert labels <= set(tree.labels) and tree.depth > 1
    assert ast_similarity(source, source, language) == 1.0


@pytest.mark.parametrize(("language", "source", "calls"), [
    ("python", "import matplotlib.pyplot as plt\nplt.plot(x)\nplt.plot(y)\nax.plot(z)\n"
               "plt.show()\nplt.savefig('a.png')\nsns.color_palette()\n", {"plot": 3}),
    ("python", "import seaborn as sns\nsns.histplot(df)\nplt.Circle((0, 0), 1)\n",
     {"histplot": 1, "circle": 1}),  # names are kept lower-cased
    ("python", "plt.plot(x\nplt.title('a')\nmy.plot(2)\n",  # does not parse: by expression
     {"plot": 2, "title": 1}),
    ("r", "library(ggplot2)\nggplot2::ggplot(df, aes(x, y)) + geom_point() + scale_x_log10()\n"
          "png('a.png')\nmy_plot(1)\ndev.off()\n",
     {"ggplot": 1, "aes": 1, "geom_point": 1, "scale_x_log10": 1}),
    ("matlab", "figure;\nPlot(x);\nPLOT(y);\nhold on\nsaveas(gcf, 'a.png');\nh.plot(1);\n",
     {"plot": 2}),  # without case; command syntax (hold on) has no parenthesis
    ("latex", "\\begin{tikzpicture}\\draw (0,0) -- (1,1);\\begin{Axis}\\addplot+ {x};"
              "\\addplot {x};\\end{Axis}\\end{tikzpicture}",
     {"environment:tikzpicture": 1, "environment:axis": 1, "macro:draw": 1,
      "macro:addplot+": 1, "macro:addplot": 1}),
])
def test_plotting_calls_are_the_benchmark_s_multiset(language: str, source: str,
                                                     calls: dict[str, int]) -> None:
    assert plotting_calls(source, language) == Counter(calls)


def test_api_f1_is_multiset_f1() -> None:
    three, one = Counter({"plot": 3}), Counter({"plot": 1})
    assert api_f1(three, one) == pytest.approx(2 * 1.0 * (1 / 3) / (1 + 1 / 3))  # recall 1/3
    assert api_f1(one, three) == pytest.approx(0.5)
    assert api_f1(Counter(), Counter()) == 1.0 and api_f1(one, Counter()) == 0.0
    mixed = Counter({"plot": 2, "title": 1, "xlabel": 1})
    generated = Counter({"plot": 1, "title": 2, "grid": 1})
    overlap = 2  # plot 1, title 1
    p, r = overlap / 4, overlap / 4
    assert api_f1(mixed, generated) == pytest.approx(2 * p * r / (p + r))


def test_fcf_by_hand() -> None:
    assert fcf(executed=False, psnr=100, ssim=1, lpips=0, delta_e=0, ref_tokens=5,
               gen_tokens=5) == 0.0
    perfect = fcf(executed=True, psnr=100, ssim=1, lpips=0, delta_e=0, ref_tokens=5,
                  gen_tokens=5)
    assert perfect == pytest.approx((1 - 1e-5) ** (1 / 4))
    q = [1 - 10 ** (-20 / 20), 0.5, 1 / (1 + 0.25), 0.5]  # dE 4.5: Q = 3 - 1.5/3 = 2.5 of 5
    value = fcf(executed=True, psnr=20, ssim=0.5, lpips=0.25, delta_e=4.5, ref_tokens=10,
                gen_tokens=20)
    assert value == pytest.approx((q[0] * q[1] * q[2] * q[3]) ** 0.25 * 0.5)
    assert fcf(executed=True, psnr=20, ssim=0.5, lpips=None, delta_e=4.5, ref_tokens=10,
               gen_tokens=20) is None  # no LPIPS, no FCF (the benchmark's)
    assert q_delta_e(0.2) == 1.0 and q_delta_e(24) == 0.0 and q_delta_e(30) == 0.0
    assert q_delta_e(1.5) == pytest.approx(0.8) and q_delta_e(1.0) == pytest.approx(0.9)
    assert q_delta_e(18) == pytest.approx(0.1) and q_delta_e(float("nan")) == 0.0


PAYLOAD = "iVBORw0KGgoAAAANSUhEUgAA" * 12  # a base64 run of 288 characters
PIXELS = [str(i * 37 % 256) for i in range(4500)]
#: Every smuggling form in every language: (reads an image file, a base64 payload, a data URI,
#: the pixels written out as numbers).
SMUGGLED = {
    "python": ("import matplotlib.pyplot as plt\nplt.imshow(plt.imread('chart.png'))\n",
               f"import base64, io\nblob = '{PAYLOAD}'\n",
               "import matplotlib.pyplot as plt\nsrc = 'data:image/png;base64,iVBORw0KGgo='\n",
               "import numpy as np\nimport matplotlib.pyplot as plt\n"
               f"p = np.array([{', '.join(PIXELS)}])\nplt.imshow(p.reshape(45, 100))\n"),
    "r": ("library(png)\nimg <- readPNG('chart.png')\nplot.new()\nrasterImage(img, 0, 0, 1, 1)\n",
          f"blob <- '{PAYLOAD}'\n",
          "src <- 'data:image/png;base64,iVBORw0KGgo='\n",
          f"p <- c({', '.join(PIXELS)})\nimage(matrix(p, 45))\n"),
    "matlab": ("img = imread('chart.png');\nimshow(img);\n",
               f"blob = '{PAYLOAD}';\n",
               "src = 'data:image/png;base64,iVBORw0KGgo=';\n",
               f"img = [{' '.join(PIXELS)}];\nimage(reshape(img, 45, 100));\n"),
    "latex": ("\\documentclass{standalone}\\usepackage{graphicx}\\begin{document}"
              "\\includegraphics{chart}\\end{document}",
              f"\\def\\blob{{{PAYLOAD}}}\n",
              "\\def\\src{data:image/png;base64,iVBORw0KGgo=}\n",
              "\\begin{tikzpicture}\\begin{axis}\\addplot[matrix plot*, point meta=explicit] "
              "coordinates {" + " ".join(f"({i % 100},{i // 100}) [{v}]"
                                         for i, v in enumerate(PIXELS)) +
              "};\\end{axis}\\end{tikzpicture}"),
}
REASONS = ("reads_image", "embedded_payload", "embedded_payload", "pixel_array")


@pytest.mark.parametrize(("language", "source", "reason"), [
    (language, source, reason) for language, sources in SMUGGLED.items()
    for source, reason in zip(sources, REASONS, strict=True)])
def test_smuggling_is_flagged_in_every_language(language: str, source: str, reason: str) -> None:
    finding = detect(source, language)
    assert finding.flagged and reason in finding.reasons


@pytest.mark.parametrize(("language", "source"), [
    ("python", "import matplotlib.pyplot as plt\nimport numpy as np\n"
               "plt.imshow(np.random.rand(10, 10))\n"),
    ("r", "image(matrix(1:100, 10))\n"),
    ("matlab", "imagesc(magic(8));\ncolorbar;\n"),
    ("latex", "\\begin{tikzpicture}\\draw (0,0) rectangle (1,1);\\end{tikzpicture}"),
])
def test_drawing_an_array_is_not_smuggling(language: str, source: str) -> None:
    assert not detect(source, language).flagged


def test_naming_the_figure_is_flagged() -> None:
    assert "names_figure" in detect("open('source.png')", "python",
                                    figure_names=("figure.png", "source.png")).reasons
    assert not detect("open('data.csv')", "python", figure_names=("source.png",)).flagged


def test_a_run_s_references_are_its_suite_when_evaluate_scores_the_run(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from refig.plugin import Asset, Task
    from refig.store import RunStore
    from refig_metric_code.corpus import suite_trivial_ngrams
    from refig_metric_code.languages import Language

    store = RunStore.create(tmp_path / "run")
    shas = []
    for index, (language, source) in enumerate([*(("python", r) for r in REFERENCES),
                                               ("r", "plot(1:3)\n")]):
        sha = store.objects.put_bytes(source.encode())
        shas.append(sha)
        store.put(Task(id=f"t{index}", family="figure-to-code", params={"language": language},
                       inputs={"reference_code": Asset(path=f"ref{index}", sha256=sha)}))
    store.close()
    # `refig evaluate` hands the metric the object's path inside the run, as here
    ignored = suite_trivial_ngrams(store.objects.path(shas[0]), Language.PYTHON, 40)
    assert ignored.references == 3  # the run's three Python references, not the R one
    assert ignored.ngrams == trivial_ngrams([crystal_tokens(r, "python") for r in REFERENCES], 40)


def test_latex_literals_are_its_words_and_numbers_not_its_commands() -> None:
    from refig_metric_code.tokens import literals

    source = ("\\documentclass[tikz]{standalone}\\usepackage{pgfplots}\\begin{document}"
              "\\begin{axis}[title=Growth, xlabel={Year}] % a comment 42\n"
              "\\addplot[red] coordinates {(1,1) (2,4) (3,9.5)};\\end{axis}\\end{document}")
    words, numbers = literals(source, "latex")
    assert {"Growth", "Year", "red"} <= set(words)
    assert not {"standalone", "pgfplots", "axis", "document", "comment"} & set(words)
    assert numbers == Counter({"1": 2, "2": 1, "4": 1, "3": 1, "9.5": 1})  # not the comment's
