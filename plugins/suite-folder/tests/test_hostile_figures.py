"""`refig suite build folder` on a 30,000 x 30,000 PNG and on bytes that are no image: refig's
own message and limit, naming the file."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from refig.cli import run
from refig_toolkit_imaging import MAX_PIXELS

SIDE = 30_000


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def huge_png(path: Path) -> Path:
    """A valid, fully decodable grey PNG of SIDE x SIDE pixels (900 MP, about 1 MB on disk)."""
    packer = zlib.compressobj(9)
    row = b"\x00" * (SIDE + 1)  # filter byte, then one grey byte per pixel
    idat = b"".join(packer.compress(row) for _ in range(SIDE)) + packer.flush()
    header = struct.pack(">IIBBBBB", SIDE, SIDE, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat)
                     + _chunk(b"IEND", b""))
    return path


def test_a_pixel_bomb_is_refused_with_refigs_message_and_limit(tmp_path, capsys):
    folder = tmp_path / "figs"
    folder.mkdir()
    huge_png(folder / "bomb.png")
    assert run(["suite", "build", "folder", "--from", str(folder), "--out",
                str(tmp_path / "out"), "-q"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert f"{SIDE * SIDE:,} pixels, over the limit of {MAX_PIXELS:,}" in err
    assert "bomb.png" in err and "decompression bomb DOS" not in err


def test_an_unreadable_png_names_its_file(tmp_path, capsys):
    folder = tmp_path / "figs"
    folder.mkdir()
    (folder / "noise.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"not an image at all" * 10)
    assert run(["suite", "build", "folder", "--from", str(folder), "--out",
                str(tmp_path / "out"), "-q"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "noise.png" in err.split("file:")[0]  # in the message itself, not only the path line
    assert "BytesIO" not in err
