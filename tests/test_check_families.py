"""`refig check --family`: every installed family's rules on real files, through the real CLI.

A deck goes through the deck-edit gate and every slide (the hidden one too) through the real
LibreOffice; programs run for real in the sandbox under python, Rscript, octave and xelatex
(each skipped when its toolchain is absent) and get the typed execution verdict and the image.
A recording renderer, installed as a real plugin distribution around the real LibreOffice one,
shows what render job the engine passed for each family.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from PIL import Image
from pptx import Presentation
from pptx.util import Inches
from refig.cli import run as refig

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed"),
]

RECORDING_HOOKS = '''
"""The real LibreOffice renderer, with every render job it is given logged as JSON lines."""
import json
import os

from refig.plugin import Renderer, RendererRecord, hookimpl


class Recording(Renderer):
    def __init__(self, **options):
        from refig.engine.plugins import registry
        from refig.records import PluginKind

        self.inner = registry().resolve(PluginKind.RENDERER, "libreoffice").create(**options)
        self.settings = self.inner.settings
        self.fonts = self.inner.fonts

    @property
    def version(self):
        return self.inner.version

    def render(self, jobs, out_dir):
        with open(os.environ["REFIG_RENDER_LOG"], "a") as log:
            for job in jobs:
                log.write(json.dumps({"file": job.path.name, "pages": job.pages,
                                      "hidden": job.hidden}) + "\\n")
        return self.inner.render(jobs, out_dir)

    def close(self):
        self.inner.close()


@hookimpl
def refig_renderers():
    yield RendererRecord(name="recording", description="logs its jobs", factory=Recording,
                         families=frozenset({"deck-edit", "figure-to-slide"}))
'''

PROGRAMS = {
    "python": ("figure.py", "python3", """\
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        ax.plot([1, 2, 3], [1, 4, 9], color="tab:red")
        fig.savefig("figure.png")
        """),
    "r": ("figure.R", "Rscript", """\
        png("figure.png", width = 640, height = 480)
        plot(1:3, c(1, 4, 9), type = "l", col = "red")
        dev.off()
        """),
    "matlab": ("figure.m", "octave", """\
        plot([1 2 3], [1 4 9], 'r');
        print('-dpng', 'figure.png');
        """),
    "latex": ("figure.tex", "xelatex", r"""\documentclass[tikz]{standalone}
        \begin{document}
        \begin{tikzpicture}\draw[red, thick] (0,0) -- (1,1) -- (2,4);\end{tikzpicture}
        \end{document}
        """),
}


@pytest.fixture
def render_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugin_installer) -> Path:
    """Install the ``recording`` renderer as a real distribution; return its job log."""
    plugin_installer("refig_renderer_recording", "refig-renderer-recording", RECORDING_HOOKS)
    log = tmp_path / "render.log"
    log.write_text("")
    monkeypatch.setenv("REFIG_RENDER_LOG", str(log))
    return log


def deck(path: Path, titles: list[str], hidden: int | None = None) -> Path:
    prs = Presentation()
    for title in titles:
        slide = prs.slides.add_slide(prs.slide_layouts[5])
        slide.shapes.title.text = title
        slide.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1)).text = "body"
    if hidden is not None:
        prs.slides[hidden]._element.set("show", "0")
    prs.save(path)
    return path


def check_json(capsys, *args: str, code: int = 0) -> list[dict]:
    assert refig(["check", "--json", "-q", *args]) == code
    return json.loads(capsys.readouterr().out)


def test_a_deck_gets_the_deck_gate_and_every_slide_rendered(tmp_path, render_log, capsys):
    original = deck(tmp_path / "deck.pptx", ["One", "Two", "Three"], hidden=2)
    edited = deck(tmp_path / "edited.pptx", ["One, edited", "Two", "Three"], hidden=2)
    pages = tmp_path / "pages"
    [report] = check_json(capsys, "--family", "deck-edit", str(edited), "--source",
                          str(original), "--input", f"target={edited}", "--renderer",
                          "recording", "--pages", str(pages))
    assert report["gate"]["passed"], report["gate"]
    assert (report["slides"], report["hidden_slides"]) == (3, 1)
    assert report["edit_recall"] == 1.0  # the edit is the target, so all of it was made
    files = [Path(f) for f in report["render"]["files"]]
    assert len(files) == 3 and all(f.parent == pages for f in files)
    for file in files:
        with Image.open(file) as image:
            assert image.size == (report["render"]["width"], report["render"]["height"])
    assert len({f.read_bytes() for f in files}) == 3  # three different slides, hidden included
    assert "deck-diff" in report["metrics"]  # the family's own metric, by default
    jobs = [json.loads(line) for line in render_log.read_text().splitlines()]
    assert jobs == [{"file": edited.name, "pages": "all", "hidden": True}]


def test_figure_to_slide_stays_the_default_and_renders_its_one_page(tmp_path, render_log,
                                                                    capsys):
    slide = deck(tmp_path / "slide.pptx", ["Only"])
    [report] = check_json(capsys, str(slide), "--renderer", "recording")
    assert report["gate"]["passed"] and report["slides"] == 1
    assert list(report) == ["file", "sha256", "gate", "slides", "objects",
                            "raster_area_ratio", "flattened", "external_links", "metrics", "render"]
    assert "files" not in report["render"]  # only with --pages
    jobs = [json.loads(line) for line in render_log.read_text().splitlines()]
    # the family asks for its one slide even when hidden (its gate renders a hidden only slide)
    assert jobs == [{"file": "slide.pptx", "pages": "first", "hidden": True}]


def test_programs_run_in_the_sandbox_with_a_typed_verdict_and_the_image(tmp_path, capsys):
    files, expected = [], []
    for language, (name, binary, source) in PROGRAMS.items():
        if shutil.which(binary) is None:
            continue
        folder = tmp_path / language
        folder.mkdir()
        (folder / name).write_text(textwrap.dedent(source))
        files.append(str(folder / name))
        expected.append(language)
    broken = tmp_path / "broken" / "figure.py"
    broken.parent.mkdir()
    broken.write_text('raise ValueError("no figure today")\n')
    silent = tmp_path / "silent" / "figure.py"
    silent.parent.mkdir()
    silent.write_text("x = 1\n")
    pages = tmp_path / "pages"
    reports = check_json(capsys, "--family", "figure-to-code", *files, str(broken), str(silent),
                         "--pages", str(pages))
    assert [r["file"] for r in reports] == [*files, str(broken), str(silent)]
    for language, report in zip(expected, reports, strict=False):
        assert report["gate"]["passed"], (language, report["gate"])
        assert report["language"] == language
        [image] = report["render"]["files"]
        with Image.open(image) as png:
            assert png.size == (report["render"]["width"], report["render"]["height"])
            red = png.convert("RGB").getcolors(1 << 24)
        assert any(r > 150 and g < 100 and b < 100 for _, (r, g, b) in red), language
    failed, nothing = reports[-2], reports[-1]
    assert failed["gate"]["reason"] == "runtime_error"
    assert "no figure today" in failed["gate"]["detail"]
    assert nothing["gate"]["reason"] == "no_image"
    assert failed["render"]["files"] == [] and nothing["render"]["files"] == []


def test_a_file_of_another_family_is_named_instead_of_gated_wrong(tmp_path, capsys):
    program = tmp_path / "figure.py"
    program.write_text("print('hi')\n")
    assert refig(["check", "-q", "--family", "figure-to-slide", str(program)]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "figure.py is a .py file, an artifact of figure-to-code, not of figure-to-slide" in said
    assert "--family figure-to-code" in said
    slide = deck(tmp_path / "slide.pptx", ["Only"])
    assert refig(["check", "-q", "--family", "figure-to-code", str(slide)]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "an artifact of deck-edit or figure-to-slide, not of figure-to-code" in said


def test_without_family_the_files_suffixes_pick_it(capsys):
    """The one installed family claiming the files' suffixes (deck-edit's .pptx decks need
    --family); none or several is a usage error naming the families to choose from."""
    from refig.commands.check import family_of
    from refig.errors import UsageError
    from refig.plugins import Registry

    registry = Registry.load(warn=lambda _: None)
    assert family_of(registry, ["slide.pptx", "notes.txt"]).name == "figure-to-slide"
    assert family_of(registry, ["figure.py", "figure.R"]).name == "figure-to-code"
    with pytest.raises(UsageError) as none:
        family_of(registry, ["notes.txt"])
    assert "deck-edit" in str(none.value.fix) and "figure-to-code" in str(none.value.fix)
    with pytest.raises(UsageError, match="artifacts of figure-to-code or figure-to-slide"):
        family_of(registry, ["slide.pptx", "figure.py"])
    assert refig(["check", "-q", "notes.txt"]) == 2
    assert "--family" in capsys.readouterr().err


@pytest.mark.parametrize(("args", "says"), [
    (["--family", "no-such-family"], "figure-to-code"),
    (["--family", "deck-edit", "--input", "answer=x.pptx"], "deck, target"),
    (["--family", "deck-edit", "--input", "target"], "is not ROLE=PATH"),
    (["--family", "deck-edit", "--input", "target=nowhere.pptx"], "nowhere.pptx does not exist"),
    (["--pages", "slide.pptx/pages"], "cannot write the pages there"),
    (["--pages", "slide.pptx"], "slide.pptx is a file, not a folder"),
])
def test_usage_errors_exit_2_before_any_work(tmp_path, capsys, args, says):
    slide = deck(tmp_path / "slide.pptx", ["Only"])
    args = [str(tmp_path / a) if a.startswith("slide.pptx") else a for a in args]
    assert refig(["check", "-q", str(slide), *args]) == 2
    assert says in " ".join(capsys.readouterr().err.split())


def test_a_folder_given_as_the_source_is_named_a_folder(tmp_path, capsys):
    slide = deck(tmp_path / "slide.pptx", ["Only"])
    assert refig(["check", "-q", str(slide), "--source", str(tmp_path)]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert f"--source: {tmp_path} is a folder, not a file" in said
    assert "does not exist" not in said


def test_a_missing_program_exits_1_and_keeps_its_row(tmp_path, capsys):
    program = tmp_path / "figure.py"
    program.write_text("import matplotlib.pyplot as plt\nplt.plot([1, 2])\n"
                       "plt.savefig('figure.png')\n")
    gone = tmp_path / "gone.py"
    assert refig(["check", "--json", "-q", "--family", "figure-to-code", str(gone),
                  str(program)]) == 1
    captured = capsys.readouterr()
    assert [r["gate"]["reason"] for r in json.loads(captured.out)] == ["missing", None]
    assert f"error: {gone}: no such file" in captured.err.replace("\n", "")


def test_check_and_evaluate_are_one_engine(tmp_path, capsys):
    """The same slides, once as a run's attempts (`refig evaluate`), once as loose files
    (`refig check`): the same verdicts, renderings and metric values."""
    from PIL import ImageDraw
    from refig.models import Asset, Attempt, AttemptStatus, Configuration, MetricValue, Render, Task
    from refig.store import RunStore

    figure = tmp_path / "figure.png"
    image = Image.new("RGB", (640, 360), "white")
    ImageDraw.Draw(image).rectangle((40, 140, 240, 220), outline="black", width=4)
    image.save(figure)
    slides = [deck(tmp_path / "one.pptx", ["One"]), deck(tmp_path / "two.pptx", ["A", "B"])]
    store = RunStore.create(tmp_path / "run")
    source = store.objects.put_bytes(figure.read_bytes())
    config = Configuration(model="m", harness="h", workflow="direct")
    store.put(config)
    shas = []
    for index, slide in enumerate(slides):
        task = Task(id=f"t{index}", family="figure-to-slide",
                    inputs={"figure": Asset(path="figure.png", sha256=source)})
        shas.append(store.objects.put_bytes(slide.read_bytes()))
        store.put_many([task, Attempt(task_id=task.id, config_id=config.id,
                                      status=AttemptStatus.SUCCEEDED,
                                      outputs={"slide": shas[-1]})])
    metrics = ["--metric", "connector-audit", "--metric", "flattening"]
    assert refig(["evaluate", str(store.root), "-q", *metrics]) == 0
    reports = check_json(capsys, *map(str, slides), "--source", str(figure), *metrics)
    renders = {r.artifact_sha256: r for r in store.iter(Render)}
    for sha, report in zip(shas, reports, strict=True):
        assert report["sha256"] == sha
        [gate] = store.query(MetricValue, artifact_sha256=sha, metric="gate")
        assert (report["gate"]["passed"], report["gate"]["reason"]) == (
            gate.value == 1.0, gate.detail["reason"])
        stored = {(v.metric, v.name): v.value for v in store.iter(MetricValue, artifact_sha256=sha)
                  if v.metric != "gate"}
        checked = {(m, n): v for m, found in report["metrics"].items() for n, v in found.items()}
        assert checked == stored
        render = renders.get(sha)
        assert (report["render"] is None) == (render is None)
        if render is not None:
            assert (report["render"]["width"], report["render"]["height"]) == (
                render.first.width_px, render.first.height_px)
    assert [r["gate"]["reason"] for r in reports] == [None, "multiple_slides"]
    assert reports[0]["metrics"]["connector-audit"]  # measured, not left out


def test_a_text_file_given_as_a_deck_exits_1_and_each_name_keeps_its_row(tmp_path, capsys):
    fake, same = tmp_path / "fake.pptx", tmp_path / "same.pptx"
    fake.write_text("not a deck")
    same.write_text("not a deck")  # the same bytes: inspected once, reported under each name
    assert refig(["check", "--json", "-q", "--family", "deck-edit", str(fake), str(same)]) == 1
    captured = capsys.readouterr()
    reports = json.loads(captured.out)
    assert [r["file"] for r in reports] == [str(fake), str(same)]
    assert [r["gate"]["reason"] for r in reports] == ["not_a_zip", "not_a_zip"]
    assert f"error: {same}: cannot be read: not_a_zip" in captured.err.replace("\n", "")


@pytest.mark.parametrize("content", [b"not an image", b"\x89PNG\r\n\x1a\n" + b"\0" * 40])
def test_a_source_no_metric_can_read_exits_1_and_is_named(tmp_path, capsys, content):
    slide = deck(tmp_path / "slide.pptx", ["Only"])
    figure = tmp_path / "figure.png"
    figure.write_bytes(content)
    assert refig(["check", "-q", "--json", str(slide), "--source", str(figure)]) == 1
    captured = capsys.readouterr()
    [report] = json.loads(captured.out)  # the row is still there
    assert report["gate"]["passed"] and report["metrics"]["image"]["ssim"] is None
    said = " ".join(captured.err.split())
    assert f"error: {figure}:" in said and "cannot read the source figure" in said


def test_a_good_source_names_no_input(tmp_path, capsys):
    slide = deck(tmp_path / "slide.pptx", ["Only"])
    figure = tmp_path / "figure.png"
    Image.new("RGB", (200, 100), "white").save(figure)
    assert refig(["check", "-q", str(slide), "--source", str(figure)]) == 0
    assert "error" not in capsys.readouterr().err
