"""The LibreOffice renderer against a real LibreOffice: sizes, pixels, batches with bad files,
hidden slides, timeouts that kill the whole process group, the registry entry, the warm office
(one per profile for every call, a dead one replaced) and the batch way without ``uno``."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import signal
import zipfile
from pathlib import Path

import pytest
from PIL import Image
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Emu
from refig.plugin import RefigError
from refig.plugins import Registry
from refig.protocols import Renderer, RenderJob
from refig_renderer_libreoffice import renderer as renderer_module
from refig_renderer_libreoffice.renderer import LibreOfficeRenderer
from refig_renderer_libreoffice.warm import uno_python

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed"),
]
needs_uno = pytest.mark.skipif(uno_python() is None, reason="python3-uno is not installed")
#: A timeout no other renderer here has: renderers that convert alike share their offices (the
#: session's would), so a renderer made with it starts and counts offices of its own.
OWN_OFFICES = 59.0


@pytest.fixture(scope="session")
def renderer():
    with LibreOfficeRenderer(width=400, workers=2, timeout=60) as shared:
        yield shared


def deck(path: Path, size=(12_192_000, 6_858_000), *, slides: int = 1, hidden=False) -> Path:
    """A deck whose slides are filled by a red rectangle on the left half."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(size[0]), Emu(size[1])
    for _ in range(slides):
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        shape = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, 0, 0, Emu(size[0] // 2), Emu(size[1]))
        shape.fill.solid()
        shape.fill.fore_color.rgb = RGBColor(255, 0, 0)
        shape.line.fill.background()
        if hidden:
            slide._element.set("show", "0")
    prs.save(path)
    return path


def jobs(files: list[Path], pages: str = "first") -> list[RenderJob]:
    return [RenderJob(Path(f), pages=pages) for f in files]


def pixel(png: Path, fx: float, fy: float) -> tuple[int, int, int]:
    with Image.open(png) as image:
        rgb = image.convert("RGB")
        return rgb.getpixel((int(rgb.width * fx), int(rgb.height * fy)))


def test_renders_the_slide_at_its_exact_aspect_ratio(renderer, tmp_path: Path) -> None:
    sizes = [(12_192_000, 6_858_000), (9_144_000, 6_858_000), (12_345_678, 4_567_890)]
    files = [deck(tmp_path / f"{i}.pptx", size) for i, size in enumerate(sizes)]
    outputs = renderer.render(jobs(files), tmp_path / "out")
    for (cx, cy), output in zip(sizes, outputs, strict=True):
        assert output.error is None and output.png is not None
        with Image.open(output.png) as image:
            assert image.size == (400, round(400 * cy / cx))
        red, white = pixel(output.png, 0.25, 0.5), pixel(output.png, 0.75, 0.5)
        assert red[0] > 200 and red[1] < 60 and red[2] < 60, red
        assert min(white) > 230, white


def test_the_png_is_the_same_every_time(renderer, tmp_path: Path) -> None:
    path = deck(tmp_path / "same.pptx")
    first, second = renderer.render(jobs([path, path]), tmp_path / "out")
    assert first.png is not None and second.png is not None and first.png != second.png
    digest = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (first.png, second.png)]
    assert digest[0] == digest[1]


def test_a_hidden_only_slide_is_rendered_when_the_job_asks(renderer, tmp_path: Path) -> None:
    hidden = deck(tmp_path / "hidden.pptx", hidden=True)
    asked, not_asked = renderer.render([RenderJob(hidden, hidden=True), RenderJob(hidden)],
                                       tmp_path / "out")
    assert asked.png is not None and pixel(asked.png, 0.25, 0.5)[0] > 200
    assert not_asked.png is None and not_asked.error is not None  # nothing LibreOffice exports
    assert not_asked.error.kind == "render_failed"


def _hide(deck_path: Path, slide: int, out: Path) -> Path:
    """A copy of ``deck_path`` with slide number ``slide`` (1-based, by part name) hidden."""
    name = f"ppt/slides/slide{slide}.xml"
    with zipfile.ZipFile(deck_path) as source, zipfile.ZipFile(out, "w") as copy:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == name:
                data = data.replace(b"<p:sld ", b'<p:sld show="0" ', 1)
            copy.writestr(info, data)
    return out


def test_hidden_slides_of_a_real_deck_only_when_the_job_asks(renderer, tmp_path: Path) -> None:
    real = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "pptx-real"
    if not (real / "shapes.pptx").is_file():
        pytest.skip("the shared real decks are not here")
    shown = renderer.render(jobs([real / "shapes.pptx"], "all"), tmp_path / "shown")[0]
    hidden = _hide(real / "shapes.pptx", 2, tmp_path / "hidden.pptx")
    asked, skipped = renderer.render([RenderJob(hidden, pages="all", hidden=True),
                                      RenderJob(hidden, pages="all")], tmp_path / "out")
    assert len(shown.pages) == 6 and len(asked.pages) == 6 and len(skipped.pages) == 5
    digests = [hashlib.sha256(page.read_bytes()).hexdigest() for page in shown.pages]
    assert [hashlib.sha256(p.read_bytes()).hexdigest() for p in asked.pages] == digests
    assert [hashlib.sha256(p.read_bytes()).hexdigest() for p in skipped.pages] == (
        digests[:1] + digests[2:])  # the hidden slide (2, in presentation order here) is left out


def test_a_batch_with_bad_files_keeps_the_good_ones_and_order(renderer, tmp_path: Path) -> None:
    good = [deck(tmp_path / f"good{i}.pptx") for i in range(3)]
    text = tmp_path / "notes.pptx"
    text.write_text("not a presentation")
    broken = tmp_path / "broken.pptx"
    broken.write_bytes(good[0].read_bytes()[:500])
    files = [good[0], text, good[1], tmp_path / "missing.pptx", broken, good[2]]
    outputs = renderer.render(jobs(files), tmp_path / "out")
    assert [o.png is not None for o in outputs] == [True, False, True, False, False, True]
    for output in outputs:
        if output.png is None:
            assert output.error is not None and output.error.kind == "render_failed"
            # not a package refig can read: LibreOffice never sees it (its links are unknown)
            assert "cannot check the links of the file" in output.error.message


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if text.encode() in handle.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def test_a_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    """0.3 s is far less than LibreOffice needs to start: the conversion must be killed."""
    with LibreOfficeRenderer(width=200, timeout=0.3) as hasty:
        workdir = str(hasty.pool.workdir)
        [output] = hasty.render(jobs([deck(tmp_path / "slow.pptx")]), tmp_path / "out")
        assert output.png is None and output.error is not None
        assert output.error.kind == "timeout"
        assert _processes_mentioning(workdir) == []  # soffice.bin died with its group


def test_version_fonts_and_settings(renderer) -> None:
    assert renderer.version.startswith("LibreOffice ")
    assert "Carlito" in renderer.fonts
    assert renderer.settings == "pdf-png;width=400;links=inert"


def test_registered_as_the_libreoffice_renderer() -> None:
    selection = Registry.load().resolve("renderer", "libreoffice")
    assert selection.distribution == "refig-renderer-libreoffice"
    created = selection.create(width=320)
    try:
        assert isinstance(created, Renderer) and "width=320" in created.settings
    finally:
        created.close()


def test_concurrent_calls_use_separate_profiles(renderer, tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    held = renderer.pool.acquire(), renderer.pool.acquire()  # two calls in flight hold two profiles
    assert held[0].path != held[1].path
    for profile in held:
        renderer.pool.release(profile)
    files = [deck(tmp_path / f"c{i}.pptx") for i in range(4)]
    with ThreadPoolExecutor(2) as pool:
        results = list(
            pool.map(lambda f: renderer.render(jobs([f]), tmp_path / "out")[0], files)
        )
    assert all(r.png is not None for r in results)


def test_a_png_of_a_real_deck(tmp_path: Path, renderer) -> None:
    real = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "pptx-real"
    if not (real / "SmartArt.pptx").is_file():
        pytest.skip("no shared real decks")
    [output] = renderer.render(jobs([real / "SmartArt.pptx"]), tmp_path / "out")
    assert output.png is not None
    with Image.open(io.BytesIO(output.png.read_bytes())) as image:
        darkest, lightest = image.convert("L").getextrema()
        assert image.width == 400 and lightest - darkest > 100


def test_a_slide_too_tall_to_rasterise_is_a_verdict_not_a_crash(renderer, tmp_path: Path) -> None:
    """``p:sldSz`` 1 x 10,000 inches (python-pptx refuses to write it, so the XML is edited):
    its PNG would be millions of pixels tall, so it fails alone and its neighbour renders."""
    tall = deck(tmp_path / "tall.pptx")
    with zipfile.ZipFile(tall) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    parts["ppt/presentation.xml"] = parts["ppt/presentation.xml"].replace(
        b'<p:sldSz cx="12192000" cy="6858000"', b'<p:sldSz cx="914400" cy="9144000000"'
    )
    with zipfile.ZipFile(tall, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    fine = deck(tmp_path / "fine.pptx")
    failed, rendered = renderer.render(jobs([tall, fine]), tmp_path / "out")
    assert failed.png is None and failed.error is not None
    assert failed.error.kind == "render_failed" and "pixels" in failed.error.message
    assert rendered.png is not None


def test_every_page_when_the_job_asks_and_the_first_otherwise(renderer, tmp_path: Path) -> None:
    three = deck(tmp_path / "three.pptx", slides=3)
    every, first = renderer.render([RenderJob(three, pages="all"), RenderJob(three)],
                                   tmp_path / "out")
    assert every.error is None and len(every.pages) == 3
    assert len(first.pages) == 1 and first.png is not None
    assert len({p.read_bytes() for p in every.pages}) == 1  # the same slide three times
    for page in every.pages:
        assert pixel(page, 0.25, 0.5) == (255, 0, 0) or pixel(page, 0.25, 0.5)[0] > 200


def red_left_half(outputs) -> bool:
    return all(o.png is not None and pixel(o.png, 0.25, 0.5)[0] > 200 for o in outputs)


@needs_uno
def test_one_office_serves_every_call_and_a_killed_one_is_replaced(tmp_path: Path,
                                                                    converters) -> None:
    files = [deck(tmp_path / f"d{i}.pptx") for i in range(3)]
    with LibreOfficeRenderer(width=200, timeout=OWN_OFFICES) as renderer:
        workdir = renderer.pool.workdir
        assert red_left_half(renderer.render([RenderJob(f) for f in files], tmp_path / "a"))
        first = converters(workdir)
        assert len(first) == 1  # started once, still running between calls
        assert red_left_half(renderer.render([RenderJob(files[0])], tmp_path / "b"))
        assert converters(workdir) == first  # the same process converted the second call
        os.kill(first.pop(), signal.SIGKILL)
        assert red_left_half(renderer.render([RenderJob(f) for f in files], tmp_path / "c"))
        assert len(converters(workdir)) == 1
    assert converters(workdir) == set()  # close() ends it


def test_relative_paths_are_rendered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `refig demo` keeps its run under a relative folder; the office needs absolute file URLs
    deck(tmp_path / "d.pptx")
    monkeypatch.chdir(tmp_path)
    with LibreOfficeRenderer(width=200) as renderer:
        assert red_left_half(renderer.render([RenderJob(Path("d.pptx"))], Path("out")))


def test_without_uno_the_batch_converter_gives_the_same_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(renderer_module, "uno_python", lambda: None)
    hidden = deck(tmp_path / "hidden.pptx", hidden=True)
    shown = deck(tmp_path / "shown.pptx")
    with LibreOfficeRenderer(width=200) as renderer:
        assert renderer.pool.warm is None
        asked, not_asked, plain = renderer.render(
            [RenderJob(hidden, hidden=True), RenderJob(hidden), RenderJob(shown)], tmp_path / "o")
    assert red_left_half([asked, plain])
    assert not_asked.png is None and not_asked.error is not None
    assert not_asked.error.kind == "render_failed"


@needs_uno
def test_warm_up_starts_the_offices_the_next_calls_use(tmp_path: Path, converters) -> None:
    files = [deck(tmp_path / f"d{i}.pptx") for i in range(4)]
    with LibreOfficeRenderer(width=200, workers=2, timeout=OWN_OFFICES) as renderer:
        workdir = renderer.pool.workdir
        renderer.warm_up(2)  # returns at once: the offices start in the background
        offices = dict(renderer.pool.warm._offices)
        assert len(offices) == 2
        renderer.warm_up(2)
        assert renderer.pool.warm._offices == offices  # already warm: none started again
        assert red_left_half(renderer.render([RenderJob(f) for f in files], tmp_path / "o"))
        # the two chunks went to the two warm offices: no office was started for them
        assert renderer.pool.warm._offices == offices
        assert len(converters(workdir)) == 2
    assert converters(workdir) == set()  # close() ends both


@needs_uno
def test_renderers_that_convert_alike_share_warm_offices_until_the_last_closes(
        tmp_path: Path, converters) -> None:
    file = deck(tmp_path / "d.pptx")
    wide = LibreOfficeRenderer(width=200, timeout=OWN_OFFICES)
    narrow = LibreOfficeRenderer(width=100, timeout=OWN_OFFICES)
    apart = LibreOfficeRenderer(width=100, timeout=OWN_OFFICES + 1)  # converts otherwise
    try:
        assert narrow.pool is wide.pool and apart.pool is not wide.pool
        workdir = wide.pool.workdir
        [first] = wide.render(jobs([file]), tmp_path / "a")
        started = converters(workdir)
        assert len(started) == 1 and red_left_half([first])
        wide.close()  # narrow still uses the office
        [second] = narrow.render(jobs([file]), tmp_path / "b")
        assert converters(workdir) == started  # the office wide warmed converted it
        assert red_left_half([second]) and Image.open(second.png).width == 100
        with pytest.raises(RefigError, match="closed"):
            wide.render(jobs([file]), tmp_path / "c")
    finally:
        wide.close()
        narrow.close()
        apart.close()
    assert converters(workdir) == set() and not workdir.exists()  # the last one ended it
