"""ORBIT against a stand-in arXiv server: selection, provenance, gate rejections, politeness,
resuming from the cache, and hostile packages."""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import itertools
import json
import tarfile
import time
from dataclasses import dataclass
from datetime import date

import pytest
from PIL import Image
from refig.cli import run
from refig.errors import RefigError
from refig.suite import check_suite
from refig_suite_orbit import arxiv as arxiv_client
from refig_suite_orbit import build as orbit_build
from refig_suite_orbit import raster
from refig_suite_orbit.build import build_orbit
from refig_suite_orbit.sources import Limits, SourceError, unpack
from refig_toolkit_agent.httpserver import Response


@dataclass
class Paper:
    arxiv_id: str
    version: int
    categories: tuple[str, ...]
    day: date
    package: bytes
    title: str = "A paper"
    license: str | None = "http://creativecommons.org/licenses/by/4.0/"


def _flat(text: str) -> str:
    """``text`` without whitespace: the console wraps long lines wherever the width ends."""
    return "".join(text.split())


def tar_gz(files: dict[str, bytes | str], *, gz: bool = True) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in files.items():
            raw = data.encode() if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            info.mtime = 0
            archive.addfile(info, io.BytesIO(raw))
    data = buffer.getvalue()
    return gzip.compress(data, mtime=0) if gz else data


def png(size=(900, 400), color="#3366AA") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def pdf(size=(900, 400), color="#AA3366") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PDF", resolution=150)
    return buffer.getvalue()


EPS = b"""%!PS-Adobe-3.0 EPSF-3.0
%%BoundingBox: 0 0 400 160
newpath 10 10 moveto 390 10 lineto 390 150 lineto 10 150 lineto closepath
0.2 0.4 0.8 setrgbcolor fill
showpage
"""


def document(body: str, preamble: str = "") -> str:
    return ("\\documentclass{article}\n\\usepackage{graphicx}\n" + preamble
            + "\n\\begin{document}\n" + body + "\n\\end{document}\n")


def figure(graphic: str, caption: str, label: str = "", env: str = "figure",
           options: str = "[width=\\linewidth]") -> str:
    return (f"\\begin{{{env}}}[t]\n\\centering\n\\includegraphics{options}{{{graphic}}}\n"
            f"\\caption{{{caption}}}\n\\label{{{label}}}\n\\end{{{env}}}\n")



CV, CL = ("cs.CV",), ("cs.CL", "cs.LG")


def _papers() -> list[Paper]:
    good_pdf = tar_gz({
        "main.tex": document(
            "\\input{intro}\n"
            + figure("plot", "Results comparison on ImageNet: accuracy versus model size.")
            + figure("overview", "Overview of the proposed framework. Our model \\cite{x} "
                     "{\\bf encodes} the image~\\ref{fig:a}.", "fig:overview"),
            preamble="\\graphicspath{{figs/}}"),
        "intro.tex": "% \\input{missing}\nSome text \\% not a comment.\n",
        "figs/overview.pdf": pdf(),
        "figs/plot.png": png(),
    })
    nested = tar_gz({
        "paper.tex": document("\\input{sections/method}"),
        "sections/method.tex": (
            "\\begin{figure*}\n\\begin{subfigure}{0.5\\linewidth}\\includegraphics{img/a.png}"
            "\\caption{Architecture A}\\end{subfigure}\n\\begin{subfigure}{0.5\\linewidth}"
            "\\includegraphics{img/b.png}\\caption{Architecture B}\\end{subfigure}\n"
            "\\caption{Architecture variants of the pipeline overview.}\\end{figure*}\n"
            + figure("img/arch", "An illustration of the proposed {\\em pipeline} with "
                     "{nested {braces}} and its architecture.", "fig:arch", env="figure*")),
        "img/arch.png": png((1200, 500)), "img/a.png": png(), "img/b.png": png(),
    })
    results_only = tar_gz({"main.tex": document(
        figure("curve.png", "Training curves of all baselines.")
        + figure("tsne.png", "t-SNE visualization of the learned features.")),
        "curve.png": png(), "tsne.png": png()})
    eps_only = tar_gz({"main.tex": document(figure("fig/model.eps", "Overview of our model "
                                                                    "architecture.")),
                       "fig/model.eps": EPS})
    single_tex = gzip.compress(document(figure("x.png", "Framework overview.")).encode(), mtime=0)
    traversal = tar_gz({"main.tex": document(figure("o.png", "Overview of the pipeline.")),
                        "o.png": png(), "../../escape.tex": "evil"})
    return [
        Paper("1706.00001", 2, CV, date(2017, 6, 3), good_pdf, "Good PDF"),
        Paper("1706.00002", 1, CL, date(2017, 6, 9), nested, "Nested input", license=None),
        Paper("1706.00003", 1, CV, date(2017, 6, 12), results_only, "Results only"),
        Paper("1706.00004", 3, CL, date(2017, 6, 20), pdf(), "PDF only"),
        Paper("1707.00005", 1, CV, date(2017, 7, 2), eps_only, "EPS only"),
        Paper("1707.00006", 1, ("cs.CV", "cs.CL"), date(2017, 7, 8), single_tex, "Missing asset"),
        Paper("1707.00007", 1, CL, date(2017, 7, 15), traversal, "Traversal"),
    ]


def _build(arxiv, tmp_path, name="suite", cache="cache", **options):
    defaults = dict(n=10, seed=5, categories=["cs.CV", "cs.CL"], source=arxiv.server.url,
                    cache=tmp_path / cache, start=date(2017, 6, 1), end=date(2017, 7, 1),
                    page_size=3, delay=0.05, backoff=0.05)
    return build_orbit(tmp_path / name, **(defaults | options))


@pytest.fixture
def served(arxiv):
    arxiv.papers = _papers()
    return arxiv


def _selection(suite):
    lines = (suite.root / "selection.jsonl").read_text().splitlines()
    return {r["arxiv_id"]: r for r in map(json.loads, lines)}


def test_selects_the_overview_figures_with_full_provenance(served, tmp_path, monkeypatch):
    # Ghostscript is not installed in every environment: hide it to test the recorded skip.
    monkeypatch.setattr(raster, "ghostscript", lambda: None)
    suite = _build(served, tmp_path)
    by_paper = {t.meta["arxiv_id"]: t for t in suite.tasks}
    assert sorted(by_paper) == ["1706.00001", "1706.00002"]
    good = by_paper["1706.00001"]
    assert good.id == "arxiv-1706.00001v2" and good.meta["version"] == 2
    assert good.meta["source_path"] == "figs/overview.pdf" and good.meta["converted_from"] == "pdf"
    assert good.meta["caption"].startswith("Overview of the proposed framework. Our model encodes")
    assert good.meta["license"] == "http://creativecommons.org/licenses/by/4.0/"
    assert good.meta["source_url"].endswith("/e-print/1706.00001v2")
    assert {"term": "framework", "where": "caption", "weight": 3.0} in good.meta["evidence"]
    assert good.meta["label"] == "fig:overview" and good.meta["field"] in ("cs.CV",)
    with Image.open(suite.input_path(good, "figure")) as image:
        assert image.width >= 1200  # rasterised at 300 dpi
    nested = by_paper["1706.00002"]
    assert nested.meta["source_path"] == "img/arch.png"  # the multi-graphic figure is passed over
    assert nested.meta["license"] == "unreported"
    assert "nested braces" in nested.meta["caption"]
    assert suite.input_path(nested, "figure").read_bytes() == png((1200, 500))
    assert nested.meta["asset_sha256"] == nested.input("figure").sha256
    lines = (suite.root / "selection.jsonl").read_text().splitlines()
    assert len(lines) == 7  # the cross-listed paper is examined once
    reasons = {k: r["decision"] for k, r in _selection(suite).items()}
    assert reasons == {
        "1706.00001": "accepted", "1706.00002": "accepted",
        "1706.00003": "no_overview_evidence", "1706.00004": "no_source",
        "1707.00005": "eps_needs_ghostscript", "1707.00006": "asset_missing",
        "1707.00007": "unsafe_archive",
    }
    assert suite.manifest.params["rejected"]["no_source"] == 1
    assert check_suite(suite.root).ok


@pytest.mark.skipif(raster.ghostscript() is None, reason="Ghostscript (gs) is not installed")
def test_eps_figures_are_rasterised_with_ghostscript(served, tmp_path):
    suite = _build(served, tmp_path)
    eps = next(t for t in suite.tasks if t.meta["arxiv_id"] == "1707.00005")
    assert eps.meta["converted_from"] == "eps"


def test_a_smaller_n_is_a_prefix_and_the_cache_resumes(served, tmp_path):
    full = _build(served, tmp_path, "full", n=2)
    before = len(served.requests)
    one = _build(served, tmp_path, "one", n=1)
    assert len(served.requests) == before  # everything came from the cache
    assert [t.id for t in one.tasks] == [t.id for t in full.tasks][:1]
    assert (one.root / "assets").iterdir()
    for task in one.tasks:
        assert task.inputs == full.task(task.id).inputs


def test_resumes_after_an_interruption(served, tmp_path):
    with contextlib.suppress(RefigError):  # stopped early, perhaps before any acceptance
        _build(served, tmp_path, "partial", max_papers=2)
    first = len(served.requests)
    _build(served, tmp_path, "whole")
    downloads = [r.path for r in served.requests[first:] if r.path.startswith("/e-print/")]
    assert len(downloads) == len(set(downloads)) == 5  # the first two packages are not refetched


def test_is_polite_rate_limit_retry_after_and_backoff(served, tmp_path, monkeypatch):
    # The client's own send times and sleeps are checked, not the server's receive times: those
    # carry scheduling jitter on a loaded machine, so a gap measured there can look shorter than
    # the limit the client kept.
    turns: list[float] = []
    sleeps: list[float] = []
    wait_turn = arxiv_client.Client._wait_turn

    def recorded_turn(self):
        wait_turn(self)
        turns.append(self._last)

    monkeypatch.setattr(arxiv_client.Client, "_wait_turn", recorded_turn)
    def recorded_sleep(seconds: float) -> None:
        sleeps.append(seconds)
        time.sleep(seconds)

    monkeypatch.setattr(orbit_build, "Client", functools.partial(arxiv_client.Client,
                                                                 sleep=recorded_sleep))
    served.inject["/e-print/"] = [
        Response(status=429, headers={"Retry-After": "1"}, body=b"slow down"),
        Response(status=503, body=b"busy"),
    ]
    served.inject["/api/query"] = [Response(body=b"Rate exceeded.")]
    suite = _build(served, tmp_path, delay=0.2)
    assert len(suite.tasks) >= 2
    assert len(turns) == len(served.requests)
    assert min(b - a for a, b in itertools.pairwise(turns)) >= 0.2  # never faster than the limit
    assert 1.0 in sleeps  # Retry-After honoured
    assert 0.05 in sleeps and 0.1 in sleeps  # backoff doubles: the throttled API page, the 503
    eprints = [r for r in served.requests if r.path.startswith("/e-print/")]
    assert eprints[0].path == eprints[1].path == eprints[2].path
    assert all(r.headers.get("User-Agent", "").startswith("refig-orbit") for r in served.requests)


def test_gives_up_clearly_when_the_server_keeps_failing(served, tmp_path):
    served.inject["/api/query"] = [Response(status=503, body=b"down")] * 10
    with pytest.raises(Exception, match="failed after 3 tries"):
        _build(served, tmp_path, retries=2)


def test_no_accepted_paper_is_an_error_with_the_reasons(arxiv, tmp_path):
    arxiv.papers = [p for p in _papers() if p.arxiv_id == "1706.00003"]
    with pytest.raises(Exception, match="no_overview_evidence"):
        _build(arxiv, tmp_path)


def test_builds_from_a_local_folder_of_packages(tmp_path):
    folder = tmp_path / "packages"
    folder.mkdir()
    for paper in _papers():
        (folder / f"{paper.arxiv_id}v{paper.version}.tar.gz").write_bytes(paper.package)
    (folder / "metadata.jsonl").write_text(json.dumps(
        {"id": "1706.00001", "version": 2, "title": "Good PDF", "license": "CC-BY-4.0",
         "categories": ["cs.CV"], "published": "2017-06-03"}) + "\n")
    suite = build_orbit(tmp_path / "local", n=5, seed=1, source=str(folder),
                        start=date(2017, 6, 1), end=date(2017, 7, 1))
    ids = {t.meta["arxiv_id"]: t for t in suite.tasks}
    assert set(ids) >= {"1706.00001", "1706.00002"}
    assert ids["1706.00001"].meta["license"] == "CC-BY-4.0"
    assert ids["1706.00001"].meta["source_url"] == "file:1706.00001v2.tar.gz"


def test_cli_builds_against_the_url_from_the_environment(served, tmp_path, monkeypatch):
    monkeypatch.setenv("REFIG_ARXIV_URL", served.server.url)
    code = run(["suite", "build", "orbit", "--out", str(tmp_path / "cli"), "--n", "1",
                "--seed", "5", "--categories", "cs.CV,cs.CL", "--start", "2017-06",
                "--end", "2017-07", "--cache", str(tmp_path / "c"), "--delay", "0.01", "-q"])
    assert code == 0
    assert run(["suite", "validate", str(tmp_path / "cli"), "-q"]) == 0


# --- hostile packages ---------------------------------------------------------------------------


def _tar_with(member: tarfile.TarInfo, data: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        ok = tarfile.TarInfo("main.tex")
        body = document("").encode()
        ok.size = len(body)
        archive.addfile(ok, io.BytesIO(body))
        archive.addfile(member, io.BytesIO(data) if data else None)
    return gzip.compress(buffer.getvalue())


@pytest.mark.parametrize("make", [
    lambda: tarfile.TarInfo("/etc/passwd"),
    lambda: tarfile.TarInfo("a/../../b.tex"),
    lambda: _link("evil", tarfile.SYMTYPE, "/etc/passwd"),
    lambda: _link("hard", tarfile.LNKTYPE, "main.tex"),
    lambda: _link("dev", tarfile.CHRTYPE, ""),
])
def test_hostile_members_refuse_the_package(make):
    member = make()
    with pytest.raises(SourceError) as caught:
        unpack(_tar_with(member))
    assert caught.value.reason == "unsafe_archive"


def _link(name: str, kind: bytes, target: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def test_bombs_and_garbage_are_bounded():
    bomb = gzip.compress(b"\0" * 5_000_000)
    with pytest.raises(SourceError) as caught:
        unpack(bomb, Limits(max_total=1_000_000))
    assert caught.value.reason == "too_large"
    with pytest.raises(SourceError) as caught:
        unpack(b"\x1f\x8b" + b"garbage" * 10)
    assert caught.value.reason == "corrupt"
    with pytest.raises(SourceError) as caught:
        unpack(b"just some bytes")
    assert caught.value.reason == "unknown_format"
    many = tar_gz({f"f{i}.tex": "x" for i in range(30)})
    with pytest.raises(SourceError, match="more than 20 members"):
        unpack(many, Limits(max_members=20))


def test_a_linked_package_or_metadata_is_refused_by_name_never_read(tmp_path, capsys):
    """A package (or ``metadata.jsonl``) in ``--source`` that is a symlink to a file elsewhere
    is refused, named and counted: nothing of it reaches the suite."""
    folder, outside = tmp_path / "packages", tmp_path / "home"
    folder.mkdir()
    outside.mkdir()
    good = next(p for p in _papers() if p.arxiv_id == "1706.00001")
    (folder / "1706.00001v2.tar.gz").write_bytes(good.package)
    (outside / "private.tar.gz").write_bytes(good.package)
    (folder / "1706.99999v1.tar.gz").symlink_to(outside / "private.tar.gz")
    argv = ["suite", "build", "orbit", "--n", "5", "--seed", "1", "--source", str(folder),
            "--start", "2017-06", "--end", "2017-07", "-q"]
    assert run([*argv, "--out", str(tmp_path / "suite")]) == 0
    said = _flat(capsys.readouterr().err)
    assert _flat("refused 1706.99999v1.tar.gz: a link to") in said
    tasks, examined = ((tmp_path / "suite" / name).read_text()
                       for name in ("tasks.jsonl", "selection.jsonl"))
    assert "1706.00001" in tasks and "1706.99999" not in tasks + examined
    manifest = json.loads((tmp_path / "suite" / "suite.json").read_text())
    assert [r["path"] for r in manifest["params"]["refused"]] == ["1706.99999v1.tar.gz"]

    (outside / "metadata.jsonl").write_text(json.dumps(
        {"id": "1706.00001", "version": 2, "title": "sk-live-secret", "categories": ["cs.CV"]}))
    (folder / "metadata.jsonl").symlink_to(outside / "metadata.jsonl")
    assert run([*argv, "--out", str(tmp_path / "again")]) == 1
    said = _flat(capsys.readouterr().err)
    assert _flat("metadata.jsonl is a link") in said
    assert not (tmp_path / "again" / "tasks.jsonl").exists()
