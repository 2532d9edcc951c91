"""LPIPS as a numpy forward pass: equal to the ``lpips`` package's torch values, weights read
without running code, fetched only from the pinned, hash-checked archive."""

from __future__ import annotations

import io
import json
import pickle
import tarfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from refig_metric_image import lpips_weights
from refig_metric_image.lpips_weights import CHECKPOINT, WeightsError, read_checkpoint, weights_dir
from refig_metric_image.perceptual import Lpips, LpipsUnavailable

DATA = Path(__file__).parent / "data" / "lpips"
INSTALLED = (weights_dir() / CHECKPOINT).is_file()
needs_weights = pytest.mark.skipif(not INSTALLED, reason="no weights: run refig-lpips-weights")


@needs_weights
def test_numpy_lpips_equals_the_lpips_packages_torch_values() -> None:
    # The values were computed once by the lpips package (torch) on these pairs: make_reference.py.
    recorded = json.loads((DATA / "reference.json").read_text())["values"]
    assert len(recorded) == 6
    lpips = Lpips()
    for name, expected in recorded.items():
        a, b = (Image.open(DATA / f"{name}_{side}.png") for side in "ab")
        assert lpips.distance(a, b) == pytest.approx(expected, abs=1e-5), name
    assert recorded["identical"] == 0.0 and recorded["bars"] > recorded["red_blue_line"] > 0.05


class _Shell:
    def __reduce__(self) -> tuple:
        return (Path.touch, (Path(_Shell.target),))

    target = ""


def test_a_weights_pickle_that_runs_code_is_refused(tmp_path: Path) -> None:
    _Shell.target = str(tmp_path / "ran")
    bad = tmp_path / CHECKPOINT
    bad.write_bytes(pickle.dumps({"AlexNet_0": _Shell()}))
    with pytest.raises(WeightsError, match="not a numpy array part"):
        read_checkpoint(bad)
    assert not (tmp_path / "ran").exists()  # plain pickle.load would have created it
    with pytest.raises(LpipsUnavailable, match="LPIPS is off"):
        Lpips(tmp_path).model()


def test_missing_weights_say_how_to_get_them(tmp_path: Path) -> None:
    with pytest.raises(LpipsUnavailable, match="refig-lpips-weights"):
        Lpips(tmp_path / "none").model()


def _archive(checkpoint: bytes) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo(lpips_weights.MEMBER)
        info.size = len(checkpoint)
        tar.addfile(info, io.BytesIO(checkpoint))
    return buffer.getvalue()


def test_fetch_refuses_an_archive_that_is_not_the_pinned_one(tmp_path: Path) -> None:
    fake = tmp_path / lpips_weights.ARCHIVE
    fake.write_bytes(_archive(pickle.dumps({"AlexNet_0": {}})))
    with pytest.raises(WeightsError, match="not the pinned"):
        lpips_weights.fetch(tmp_path / "out", archive=fake)
    assert not (tmp_path / "out" / CHECKPOINT).exists()
    assert lpips_weights.main(["--dir", str(tmp_path / "out"), "--archive", str(fake)]) == 1


def test_fetch_from_a_local_index_checks_and_keeps_only_the_checkpoint(
    tmp_path: Path, monkeypatch
) -> None:
    # A real PEP 503 index on 127.0.0.1 serving an archive whose hash is pinned for the test.
    import http.server
    import threading

    arrays = {
        "AlexNet_0": {
            f"Conv_{i}": {
                "kernel": np.zeros((1, 1, 3, 2), np.float32),
                "bias": np.zeros(2, np.float32),
            }
            for i in range(5)
        },
        **{
            f"NetLinLayer_{i}": {"Conv_0": {"kernel": np.ones((1, 1, 2, 1), np.float32)}}
            for i in range(5)
        },
    }
    payload = _archive(pickle.dumps(arrays))
    import hashlib

    monkeypatch.setattr(lpips_weights, "ARCHIVE_SHA256", hashlib.sha256(payload).hexdigest())
    page = f'<a href="/files/{lpips_weights.ARCHIVE}#sha256=x">{lpips_weights.ARCHIVE}</a>'

    class Index(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = page.encode() if self.path.startswith("/simple/") else payload
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Index)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        index = f"http://127.0.0.1:{server.server_address[1]}/simple"
        path = lpips_weights.fetch(tmp_path / "w", index=index)
    finally:
        server.shutdown()
    assert path == tmp_path / "w" / CHECKPOINT
    assert sorted(p.name for p in (tmp_path / "w").iterdir()) == [CHECKPOINT]
    assert read_checkpoint(path)["AlexNet_0"]["Conv_4"]["bias"].shape == (2,)


def test_its_environment_digests_the_weights_it_reads(tmp_path: Path) -> None:
    from refig_metric_image.metric import ImageSimilarity

    assert "lpips_weights_sha256" not in ImageSimilarity().environment()  # LPIPS off
    assert ImageSimilarity(lpips_weights=tmp_path).environment()[
        "lpips_weights_sha256"].startswith("missing")
    (tmp_path / CHECKPOINT).write_bytes(b"weights one")
    one = ImageSimilarity(lpips_weights=tmp_path).environment()["lpips_weights_sha256"]
    (tmp_path / CHECKPOINT).write_bytes(b"weights two")
    two = ImageSimilarity(lpips_weights=tmp_path).environment()["lpips_weights_sha256"]
    assert len(one) == 64 and one != two
