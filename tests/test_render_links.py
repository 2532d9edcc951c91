"""Hostile decks whose pictures are links out of the package, through the real CLI and a real
LibreOffice on both converter paths: nothing reaches a loopback server, no host pixel reaches a
rendering, and a full-slide linked picture is a flattened slide (issue 28, items 1 and 2)."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import socketserver
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pptx import Presentation
from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.oxml.ns import qn
from pptx.util import Emu
from refig.cli import run as refig
from refig.models import Asset, Attempt, AttemptStatus, Configuration, MetricValue, Render, Task
from refig.store import RunStore
from refig_renderer_libreoffice import warm

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed"),
]

WIDTH, HEIGHT = 12_192_000, 6_858_000
#: The host's picture: a colour no slide of these tests paints.
MAGENTA = (255, 0, 255)


def host_png(path: Path) -> Path:
    """A distinctive host image: all magenta."""
    Image.new("RGB", (320, 180), MAGENTA).save(path)
    return path


def magenta_share(png: Path) -> float:
    """The share of the rendering's pixels that are the host image's colour."""
    with Image.open(png) as image:
        pixels = np.asarray(image.convert("RGB")).astype(int)
    near = np.abs(pixels - np.array(MAGENTA)).sum(axis=2) < 60
    return float(near.mean())


def linked_slide(
    path: Path, targets: list[str], *, how: str = "link", title: str | None = None
) -> Path:
    """One slide whose pictures each cover the slide and link to a target rather than embed it:
    ``link`` (``r:link``), ``embed`` (``r:embed`` through an external relationship)."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(WIDTH), Emu(HEIGHT)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    placeholder = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(placeholder, format="PNG")
    for target in targets:
        picture = slide.shapes.add_picture(
            io.BytesIO(placeholder.getvalue()), 0, 0, Emu(WIDTH), Emu(HEIGHT)
        )
        blip = picture._element.find(".//" + qn("a:blip"))
        embedded = blip.get(qn("r:embed"))
        del blip.attrib[qn("r:embed")]
        slide.part.drop_rel(embedded)
        rid = slide.part.relate_to(target, RT.IMAGE, is_external=True)
        blip.set(qn("r:link" if how == "link" else "r:embed"), rid)
    if title:
        slide.shapes.add_textbox(Emu(0), Emu(0), Emu(WIDTH // 2), Emu(600_000)).text = title
    prs.save(path)
    return path


class _Counting(socketserver.BaseRequestHandler):
    """Counts every connection and answers it with a PNG, as a real image server would."""

    def handle(self) -> None:
        self.server.connections += 1  # type: ignore[attr-defined]
        self.request.recv(65536)
        body = self.server.body  # type: ignore[attr-defined]
        self.request.sendall(
            b"HTTP/1.0 200 OK\r\nContent-Type: image/png\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
            + body
        )


@pytest.fixture
def server(tmp_path: Path) -> Iterator[socketserver.ThreadingTCPServer]:
    """A real HTTP server on 127.0.0.1 serving the magenta picture; ``connections`` counts."""
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Counting) as srv:
        srv.connections = 0  # type: ignore[attr-defined]
        srv.body = host_png(tmp_path / "served.png").read_bytes()  # type: ignore[attr-defined]
        thread = threading.Thread(target=srv.serve_forever, daemon=True)
        thread.start()
        yield srv
        srv.shutdown()


@pytest.fixture(params=["warm", "cold"])
def converter(request, monkeypatch) -> Iterator[str]:
    """The warm UNO path, or the cold ``--convert-to`` path (no interpreter with ``uno``)."""
    if request.param == "warm" and warm.uno_python() is None:
        pytest.skip("python3-uno is not installed")
    if request.param == "cold":
        monkeypatch.setenv("REFIG_UNO_PYTHON", "/bin/false")  # executable, but no ``uno``
    warm.uno_python.cache_clear()
    assert (warm.uno_python() is None) == (request.param == "cold")
    yield request.param
    warm.uno_python.cache_clear()


def check(capsys, *args: str) -> list[dict]:
    assert refig(["check", "--json", "-q", *args]) == 0
    return json.loads(capsys.readouterr().out)


def rendering(pages: Path) -> Path:
    [png] = sorted(pages.rglob("*.png"))
    return png


def test_a_slide_linked_to_the_network_and_the_host_renders_neither(
    tmp_path, server, converter, capsys
):
    (tmp_path / "host").mkdir()
    host = host_png(tmp_path / "host" / "secret.png")
    port = server.server_address[1]
    targets = [f"http://127.0.0.1:{port}/x.png", host.as_uri(), "beside.png"]
    host_png(tmp_path / "beside.png")  # a relative link finds this beside the file
    slides = [linked_slide(tmp_path / f"{how}.pptx", targets, how=how) for how in ("link", "embed")]
    pages = tmp_path / "pages"
    reports = check(capsys, *map(str, slides), "--pages", str(pages))
    assert server.connections == 0  # type: ignore[attr-defined]
    for report in reports:
        assert report["gate"]["passed"], report["gate"]
        stripped = {
            (link["target"], link["reason"], link["type"], link["part"])
            for link in report["external_links"]
        }
        assert stripped == {(t, "external", "image", "ppt/slides/slide1.xml") for t in targets}
        # three full-slide pictures, linked: raster, as embedded ones would be
        assert report["raster_area_ratio"] == pytest.approx(1.0)
        assert report["flattened"] is True
        assert report["objects"]["pictures"] == 3
    for png in pages.rglob("*.png"):
        assert magenta_share(png) < 0.001, png


def test_a_deck_edit_deck_with_links_renders_every_slide_without_them(
    tmp_path, server, converter, capsys
):
    port = server.server_address[1]
    host = host_png(tmp_path / "host.png")
    targets = [f"http://127.0.0.1:{port}/y.png", host.as_uri()]
    original = linked_slide(tmp_path / "original.pptx", [], title="Original")
    edited = linked_slide(tmp_path / "edited.pptx", targets, title="Edited")
    pages = tmp_path / "pages"
    [report] = check(
        capsys,
        "--family",
        "deck-edit",
        str(edited),
        "--source",
        str(original),
        "--input",
        f"target={original}",
        "--pages",
        str(pages),
    )
    assert server.connections == 0  # type: ignore[attr-defined]
    files = [Path(f) for f in report["render"]["files"]]
    assert files and all(magenta_share(f) < 0.001 for f in files)
    assert report["gate"]["passed"], report["gate"]
    assert [link["target"] for link in report["external_links"]] == targets


def test_web_hyperlinks_stay_and_the_deck_renders(tmp_path, capsys):
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    box = slide.shapes.add_textbox(Emu(900_000), Emu(900_000), Emu(6_000_000), Emu(900_000))
    run = box.text_frame.paragraphs[0].add_run()
    run.text = "Read the paper"
    run.hyperlink.address = "https://example.org/paper"
    path = tmp_path / "hyperlink.pptx"
    prs.save(path)
    [report] = check(capsys, str(path))
    assert report["gate"]["passed"] and report["external_links"] == []
    assert report["render"]["width"] > 0


def _source_and_store(tmp_path: Path) -> tuple[RunStore, str, str]:
    """A run whose one attempt is a slide linking to the source figure's object in the store."""
    store = RunStore.create(tmp_path / "run")
    figure = host_png(tmp_path / "figure.png").read_bytes()
    source = store.objects.put_bytes(figure)
    store.put(
        Task(
            id="t1",
            family="figure-to-slide",
            inputs={"figure": Asset(path="figure.png", sha256=source)},
        )
    )
    config = Configuration(model="m", harness="h", workflow="direct")
    store.put(config)
    # slides render from their own object path, objects/<sha[:2]>/<sha>: one level up is
    # objects/, where the source figure lies at <sha[:2]>/<sha>
    slide = linked_slide(tmp_path / "paste.pptx", [f"../{source[:2]}/{source}"])
    artifact = store.objects.put_bytes(slide.read_bytes())
    store.put(
        Attempt(
            task_id="t1",
            config_id=config.id,
            status=AttemptStatus.SUCCEEDED,
            outputs={"slide": artifact},
        )
    )
    return store, source, artifact


def test_a_link_into_the_run_store_is_a_flattened_paste_that_never_renders(tmp_path, converter):
    store, source, artifact = _source_and_store(tmp_path)
    assert store.objects.path(source).is_file()  # the target the link aims at is there
    assert refig(["evaluate", str(store.root), "--metric", "flattening", "-q"]) == 0
    values = {v.name: v.value for v in store.iter(MetricValue, metric="flattening")}
    assert values["flattened"] == 1 and values["raster_area_ratio"] == pytest.approx(1.0)
    [render] = list(store.iter(Render))
    assert render.artifact_sha256 == artifact and render.pages
    page = store.objects.path(render.pages[0].png_sha256)
    assert magenta_share(page) < 0.001
    assert hashlib.sha256(page.read_bytes()).hexdigest() != source


def test_without_bubblewrap_rendering_refuses_unless_opted_out(tmp_path):
    """A machine where bubblewrap is not on PATH (stood in for by an empty PATH; LibreOffice is
    named by REFIG_SOFFICE): refig check exits 2 naming the fix, and renders only when
    REFIG_RENDER_SANDBOX=none says so, still with the links made inert."""
    slide = linked_slide(tmp_path / "slide.pptx", [host_png(tmp_path / "h.png").as_uri()])
    refig_binary = str(Path(sys.executable).with_name("refig"))
    env = {
        "HOME": str(tmp_path),
        "PATH": str(tmp_path / "no-such-bin"),
        "REFIG_SOFFICE": shutil.which("soffice") or "soffice",
    }
    command = [refig_binary, "check", "--json", "-q", "-m", "flattening", str(slide)]
    refused = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2, refused.stderr
    said = " ".join(refused.stderr.split())
    assert "apt-get install bubblewrap" in said and "REFIG_RENDER_SANDBOX=none" in said
    assert refused.stdout == ""
    opted = subprocess.run(
        command,
        env=env | {"REFIG_RENDER_SANDBOX": "none"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert opted.returncode == 0, opted.stderr
    [report] = json.loads(opted.stdout)
    assert report["render"]["error"] is None and report["external_links"]
