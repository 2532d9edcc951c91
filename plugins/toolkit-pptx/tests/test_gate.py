"""The structural gate on valid, broken and hostile decks, each generated here: the right reason,
from the check that knows the cause, and (in a subprocess) within a memory bound."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from refig.models import ErrorInfo, GateReason
from refig_toolkit_pptx import Limits, Package, PackageError, iter_slide_images
from refig_toolkit_pptx.gate import fold_render, inspect_structure
from refig_toolkit_pptx.xml import XmlError, parse

#: A hang guard, not a speed test: a verdict that blocks fails here instead of stalling the run.
NEVER_HANGS = pytest.mark.timeout(120)


def verdict(path: Path | str, limits: Limits | None = None) -> tuple[bool, GateReason | None]:
    result = inspect_structure(path, limits) if limits else inspect_structure(path)
    return result.gate.passed, result.gate.reason


def test_a_one_slide_deck_passes_with_its_tree(decks) -> None:
    result = inspect_structure(decks.simple())
    assert result.gate.passed and result.gate.reason is None and result.gate.slides == 1
    assert result.tree is not None and result.tree.counts()["text_boxes"] == 1


def test_missing_file(tmp_path: Path) -> None:
    assert verdict(tmp_path / "nope.pptx") == (False, GateReason.MISSING)


@pytest.mark.parametrize(
    "content", [b"", b"hello, not a zip", b"%PDF-1.7\n...", b"\x89PNG\r\n\x1a\n" + b"0" * 100]
)
def test_not_a_zip(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.pptx"
    path.write_bytes(content)
    assert verdict(path) == (False, GateReason.NOT_A_ZIP)


@NEVER_HANGS
def test_a_directory_and_a_fifo_are_not_zips_and_never_block(tmp_path: Path) -> None:
    (tmp_path / "dir.pptx").mkdir()
    os.mkfifo(tmp_path / "pipe.pptx")  # opening a FIFO for reading would block forever
    assert verdict(tmp_path / "dir.pptx") == (False, GateReason.NOT_A_ZIP)
    assert verdict(tmp_path / "pipe.pptx") == (False, GateReason.NOT_A_ZIP)


def test_truncated_zip_is_corrupt(decks) -> None:
    path = decks.simple()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert verdict(path) == (False, GateReason.CORRUPT)


def test_a_zip_that_is_not_a_presentation_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "plain.pptx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "hello")
    assert verdict(path) == (False, GateReason.CORRUPT)


def test_malformed_slide_xml_is_corrupt(decks) -> None:
    path = decks.rewrite(decks.simple(), {decks.SLIDE: lambda b: b[: len(b) // 2]})
    passed, reason = verdict(path)
    assert (passed, reason) == (False, GateReason.CORRUPT)
    assert "slide1.xml" in inspect_structure(path).gate.detail


def test_a_slide_listed_but_missing_is_corrupt(decks) -> None:
    assert verdict(decks.rewrite(decks.simple(), {decks.SLIDE: None})) == (
        False,
        GateReason.CORRUPT,
    )


def test_billion_laughs_in_a_slide_part_is_refused(decks) -> None:
    entities = '<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'
        for i in range(1, 10)
    )

    def laugh(xml: bytes) -> bytes:
        body = xml.split(b"?>", 1)[1].replace(b"hello", b"&lol9;")
        return f'<?xml version="1.0"?><!DOCTYPE p:sld [{entities}]>'.encode() + body

    path = decks.rewrite(decks.simple(), {decks.SLIDE: laugh})
    assert verdict(path) == (False, GateReason.CORRUPT)
    assert "DTD" in inspect_structure(path).gate.detail


def test_external_entity_is_refused_and_never_read(decks) -> None:
    def xxe(xml: bytes) -> bytes:
        body = xml.split(b"?>", 1)[1].replace(b"hello", b"&xxe;")
        return (
            b'<?xml version="1.0"?><!DOCTYPE p:sld [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
            + body
        )

    path = decks.rewrite(decks.simple(), {decks.SLIDE: xxe})
    result = inspect_structure(path)
    assert (result.gate.passed, result.gate.reason) == (False, GateReason.CORRUPT)
    assert result.tree is None and "root:" not in result.gate.detail


def test_zip_bomb_is_too_large_before_decompressing(decks) -> None:
    path = decks.simple()
    with (
        zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive,
        archive.open("ppt/media/bomb.bin", "w", force_zip64=True) as handle,
    ):
        block = b"\0" * (1 << 20)
        for _ in range(64):  # 64 MB of zeros, about 64 KB compressed
            handle.write(block)
    assert verdict(path) == (False, GateReason.TOO_LARGE)
    # the central directory's ratio check names it: refused before a byte was decompressed
    assert "zip bomb" in inspect_structure(path).gate.detail


def test_total_size_and_entry_count_limits(decks) -> None:
    path = decks.simple()
    assert verdict(path, Limits(max_total_bytes=10_000)) == (False, GateReason.TOO_LARGE)
    assert verdict(path, Limits(max_entries=5)) == (False, GateReason.TOO_LARGE)
    assert verdict(path, Limits(max_file_bytes=1_000)) == (False, GateReason.TOO_LARGE)
    assert verdict(path, Limits(max_xml_bytes=100)) == (False, GateReason.TOO_LARGE)


def test_a_header_that_lies_about_a_part_size_cannot_blow_memory(decks) -> None:
    """The directory says the slide is 200 bytes; reading stops there and the CRC check fails."""
    path = decks.simple()
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(decks.SLIDE)
    local = info.header_offset
    assert data[local : local + 4] == b"PK\x03\x04"
    data[local + 22 : local + 26] = (200).to_bytes(4, "little")
    central = data.index(b"PK\x01\x02")
    while True:  # find the slide's central directory entry
        name_length = int.from_bytes(data[central + 28 : central + 30], "little")
        name = bytes(data[central + 46 : central + 46 + name_length]).decode()
        if name == decks.SLIDE:
            data[central + 24 : central + 28] = (200).to_bytes(4, "little")
            break
        extra = int.from_bytes(data[central + 30 : central + 32], "little")
        comment = int.from_bytes(data[central + 32 : central + 34], "little")
        central += 46 + name_length + extra + comment
    path.write_bytes(bytes(data))
    assert verdict(path) == (False, GateReason.CORRUPT)


def test_decompression_bomb_png_inside_a_deck_is_too_large(decks) -> None:
    path = decks.png_bomb()
    assert path.stat().st_size < 2_000_000
    assert verdict(path) == (False, GateReason.TOO_LARGE)
    assert "decompression bomb" in inspect_structure(path).gate.detail


def test_the_gate_refuses_a_bomb_as_reading_the_images_does(decks) -> None:
    # The gate checks headers without hashing (check_image_headers): the same verdict and detail.
    path = decks.png_bomb()
    with Package.open(path) as package, pytest.raises(PackageError) as raised:
        list(iter_slide_images(package, package.slides()[0].part))
    assert raised.value.reason == GateReason.TOO_LARGE
    assert inspect_structure(path).gate.detail == raised.value.detail


def test_no_slides(decks) -> None:
    assert verdict(decks.save(decks.new(slides=0), "empty")) == (False, GateReason.NO_SLIDES)


def test_two_slides(decks) -> None:
    result = inspect_structure(decks.simple(slides=2))
    assert (result.gate.passed, result.gate.reason) == (False, GateReason.MULTIPLE_SLIDES)
    assert result.gate.slides == 2 and result.tree is None


def test_a_hidden_slide_counts_as_a_slide(decks) -> None:
    prs = decks.new(slides=2)
    prs.slides[1]._element.set("show", "0")
    result = inspect_structure(decks.save(prs, "hidden-second"))
    assert (result.gate.reason, result.gate.slides) == (GateReason.MULTIPLE_SLIDES, 2)
    assert "1 hidden" in result.gate.detail


def test_a_single_hidden_slide_passes_the_structure(decks) -> None:
    prs = decks.new()
    prs.slides[0]._element.set("show", "0")
    result = inspect_structure(decks.save(prs, "hidden-only"))
    assert result.gate.passed and result.gate.slides == 1 and "hidden" in result.gate.detail


def test_fold_render_turns_a_pass_into_the_render_reason(decks) -> None:
    gate = inspect_structure(decks.simple()).gate
    assert fold_render(gate, None, rendered=True) == gate
    timeout = fold_render(gate, ErrorInfo(kind="timeout", message="slow"), rendered=False)
    assert (timeout.passed, timeout.reason) == (False, GateReason.RENDER_TIMEOUT)
    failed = fold_render(gate, ErrorInfo(kind="render_failed", message="x"), rendered=False)
    assert (failed.passed, failed.reason) == (False, GateReason.RENDER_FAILED)
    assert fold_render(gate, None, rendered=False).reason == GateReason.RENDER_FAILED
    structural = inspect_structure(decks.simple(slides=2)).gate
    assert fold_render(structural, None, rendered=True) == structural


_MEMORY_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from refig_toolkit_pptx.gate import inspect_structure
out = []
for path in sys.argv[1:]:
    gate = inspect_structure(path).gate
    out.append([gate.passed, gate.reason])
print(json.dumps(out))
"""


def test_hostile_decks_stay_within_a_memory_bound(decks) -> None:
    """The whole inspection of every hostile deck runs in a process capped at 1 GiB."""
    good = decks.simple()
    png_bomb = decks.png_bomb()
    zip_bomb = decks.simple()
    with (
        zipfile.ZipFile(zip_bomb, "a", zipfile.ZIP_DEFLATED) as archive,
        archive.open("ppt/slides/slide1.xml.bak", "w", force_zip64=True) as handle,
    ):
        for _ in range(64):
            handle.write(b"<a/>" * (1 << 18))
    laughs = decks.rewrite(
        decks.simple(),
        {
            decks.SLIDE: lambda b: (
                b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
                + b"".join(f'<!ENTITY a{i} "{"&a;" * 10}">'.encode() for i in range(1, 3))
                + b"]>"
                + b.split(b"?>", 1)[1]
            )
        },
    )
    limit = 1 << 30
    files = [str(p) for p in (good, png_bomb, zip_bomb, laughs)]
    done = subprocess.run(
        [sys.executable, "-c", _MEMORY_CHILD.format(limit=limit), *files],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [
        [True, None],
        [False, "too_large"],
        [False, "too_large"],
        [False, "corrupt"],
    ]


@NEVER_HANGS
def test_randomly_damaged_decks_get_a_classified_verdict(decks) -> None:
    """Seeded byte flips and truncations: every verdict comes from a check that knows the cause
    (no "unreadable: <exception>" fallback)."""
    import random

    base = decks.simple().read_bytes()
    rng = random.Random(7)
    path = decks.path("fuzz")
    for _ in range(300):
        data = bytearray(base)
        for _ in range(rng.randint(1, 30)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.2:
            data = data[: rng.randrange(len(data))]
        path.write_bytes(bytes(data))
        gate = inspect_structure(path).gate
        assert "unreadable" not in gate.detail, gate.detail


@pytest.mark.parametrize("codec", ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_dtd_is_refused_in_every_encoding_xml_allows(codec: str) -> None:
    document = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>'
    with pytest.raises(XmlError, match="DTD"):
        parse(document.encode(codec))


def test_numbers_beyond_64_bits_are_ignored_not_a_crash(decks) -> None:
    """A 400-digit rotation or offset once overflowed the float arithmetic of the transforms."""
    huge = b"9" * 400

    def inflate(xml: bytes) -> bytes:
        return xml.replace(b"<a:xfrm>", b'<a:xfrm rot="' + huge + b'">', 1).replace(
            b'<a:off x="914400"', b'<a:off x="' + huge + b'"', 1
        )

    result = inspect_structure(decks.rewrite(decks.simple(), {decks.SLIDE: inflate}))
    assert result.gate.passed, result.gate.detail
    [box] = result.tree.objects
    assert box.rotation == 0 and box.rect is None  # unusable values read as absent
