"""Code metrics against the reference packages (crystalbleu, nltk, scikit-learn, ast) on
programs the tests write."""

from __future__ import annotations

import ast
import warnings
from collections import Counter

import pytest
from crystalbleu import corpus_bleu
from nltk.translate.bleu_score import sentence_bleu
from nltk.util import ngrams
from refig_metric_code.calls import api_f1, plotting_calls
from refig_metric_code.crystal import covered_orders, crystal_bleu, trivial_ngrams
from refig_metric_code.fcf import fcf, q_delta_e
from refig_metric_code.scoring import score_code
from refig_metric_code.smuggling import detect
from refig_metric_code.syntax_tree import ast_similarity, dice, syntax_tree
from refig_metric_code.tokens import code_tokens, token_count
from sklearn.metrics import f1_score

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


def test_tokens_drop_comments_and_whitespace() -> None:
    tokens = code_tokens(REFERENCES[0], "python")
    assert "# a comment" not in tokens and all(t.strip() == t and t for t in tokens)
    assert "'Sales'" in tokens  # a string literal is one token
    assert token_count(REFERENCES[0], "python") == len(tokens)


def test_trivial_ngrams_are_the_most_frequent_of_the_reference_stream() -> None:
    streams = [code_tokens(r, "python") for r in REFERENCES]
    flat = [t for s in streams for t in s]
    expected = Counter(g for n in range(1, 5) for g in ngrams(flat, n))
    got = trivial_ngrams(streams, k=20)
    assert got == dict(expected.most_common(20))


def test_crystal_bleu_equals_the_reference_package() -> None:
    streams = [code_tokens(r, "python") for r in REFERENCES]
    trivial = trivial_ngrams(streams, k=10)
    ref, cand = code_tokens(REFERENCES[0], "python"), code_tokens(CANDIDATE, "python")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = corpus_bleu([[ref]], [cand], ignoring=trivial)
    assert crystal_bleu(ref, cand, trivial) == pytest.approx(expected)
    assert 0 < crystal_bleu(ref, cand, trivial) < 1
    assert crystal_bleu(ref, ref, trivial) == pytest.approx(1.0)


def test_an_ignore_list_covering_the_reference_is_not_meaningful_rather_than_zero() -> None:
    streams = [code_tokens(r, "python") for r in REFERENCES]
    ref = streams[0]
    everything = trivial_ngrams(streams, k=500)  # three short programs: 500 is all of them
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert corpus_bleu([[ref]], [ref], ignoring=everything) == 0.0  # even the reference
    assert covered_orders(ref, everything) == (1, 2, 3, 4)
    assert score_code(REFERENCES[0], REFERENCES[0], "python", everything).crystalbleu is None
    assert score_code(REFERENCES[0], CANDIDATE, "python", everything).crystalbleu is None
    some = trivial_ngrams(streams, k=10)  # the paper's definition wherever a value exists
    assert covered_orders(ref, some) == ()
    scored = score_code(REFERENCES[0], CANDIDATE, "python", some)
    assert scored.covered == () and scored.crystalbleu == pytest.approx(
        crystal_bleu(ref, code_tokens(CANDIDATE, "python"), some))
    only_unigrams = {(t,): 1 for t in ref}  # one order covered is enough to void the score
    assert covered_orders(ref, only_unigrams) == (1,)


def test_crystal_bleu_without_trivial_ngrams_is_nltk_bleu() -> None:
    ref, cand = code_tokens(REFERENCES[0], "python"), code_tokens(CANDIDATE, "python")
    assert crystal_bleu(ref, cand, {}) == pytest.approx(sentence_bleu([ref], cand))
    from nltk.translate.bleu_score import SmoothingFunction

    smoothed = sentence_bleu([ref], cand, smoothing_function=SmoothingFunction().method1)
    assert crystal_bleu(ref, cand, {}, smooth="method1") == pytest.approx(smoothed)


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
    ("python", CANDIDATE, {"plot", "title", "grid"}),
    ("python", "import seaborn as sns\nsns.histplot(df)\nplt.show()\n", {"histplot"}),
    ("r", "library(ggplot2)\nggplot2::ggplot(df, aes(x, y)) + geom_point()\ndev.off()\n",
     {"ggplot", "aes", "geom_point"}),
    ("r", "png('a.png')\nbarplot(c(1, 2))\nlegend('top', 'a')\n", {"barplot", "legend"}),
    ("matlab", "figure;\nbar([1 2]);\nhold on\nxlabel('x');\nsaveas(gcf, 'a.png');\n",
     {"figure", "bar", "hold", "xlabel"}),
    ("latex", "\\documentclass{standalone}\\usepackage{pgfplots}\\begin{document}"
              "\\begin{tikzpicture}\\begin{axis}\\addplot{x};\\end{axis}\\end{tikzpicture}"
              "\\end{document}", {"tikzpicture", "axis", "addplot"}),
])
def test_plotting_calls_follow_the_allow_list_and_exclusions(language: str, source: str,
                                                             calls: set[str]) -> None:
    assert plotting_calls(source, language) == calls


def test_api_f1_equals_scikit_learn() -> None:
    reference = {"plot", "title", "xlabel"}
    generated = plotting_calls(CANDIDATE, "python")
    universe = sorted(reference | generated)
    expected = f1_score([n in reference for n in universe], [n in generated for n in universe])
    assert api_f1(reference, generated) == pytest.approx(expected)
    assert api_f1(set(), set()) == 1.0 and api_f1({"plot"}, set()) == 0.0


def test_fcf_by_hand() -> None:
    assert fcf(executed=False, psnr=100, ssim=1, lpips=0, delta_e=0, ref_tokens=5,
               gen_tokens=5) == 0.0
    perfect = fcf(executed=True, psnr=100, ssim=1, lpips=0, delta_e=0, ref_tokens=5,
                  gen_tokens=5)
    assert perfect == pytest.approx((1 - 1e-5) ** (1 / 4))
    q = [1 - 10 ** (-20 / 20), 0.5, 1 / (1 + 0.25), 0.5]  # dE 4.5 is halfway 3 -> 6
    value = fcf(executed=True, psnr=20, ssim=0.5, lpips=0.25, delta_e=4.5, ref_tokens=10,
                gen_tokens=20)
    assert value == pytest.approx((q[0] * q[1] * q[2] * q[3]) ** 0.25 * 0.5)
    assert q_delta_e(0.2) == 1.0 and q_delta_e(24) == 0.0 and q_delta_e(30) == 0.0
    assert q_delta_e(1.5) == pytest.approx(0.8)


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
    from refig.plugin.analysis import RunStore
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
    assert ignored.ngrams == trivial_ngrams([code_tokens(r, "python") for r in REFERENCES], 40)


def test_latex_literals_are_its_words_and_numbers_not_its_commands() -> None:
    from refig_metric_code.tokens import literals

    source = ("\\documentclass[tikz]{standalone}\\usepackage{pgfplots}\\begin{document}"
              "\\begin{axis}[title=Growth, xlabel={Year}] % a comment 42\n"
              "\\addplot[red] coordinates {(1,1) (2,4) (3,9.5)};\\end{axis}\\end{document}")
    words, numbers = literals(source, "latex")
    assert {"Growth", "Year", "red"} <= set(words)
    assert not {"standalone", "pgfplots", "axis", "document", "comment"} & set(words)
    assert numbers == Counter({"1": 2, "2": 1, "4": 1, "3": 1, "9.5": 1})  # not the comment's
