"""Apply an OOXML patch (a JSON list of operations on slide, layout, master, theme or notes
parts) to a deck, validating every step; write the result only when all of it holds.

Usage: python tools/apply_patch.py [PATCH] [--base DECK] [--out DECK]
  PATCH   default patch.json
  --base  the deck to patch: default edited.pptx when it exists, else source.pptx
  --out   default edited.pptx
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree

NAMESPACES = {
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
}
#: The parts a precise edit may touch.
PATCHABLE = re.compile(r"^ppt/(slides/slide|slideLayouts/slideLayout|slideMasters/slideMaster|"
                       r"theme/theme|notesSlides/notesSlide)\d+\.xml$")
OPS = ("set", "unset", "text", "remove", "replace", "insert")
POSITIONS = ("first", "last", "before", "after")
MAX_PART_BYTES = 32 << 20
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, remove_blank_text=False)


class PatchError(Exception):
    """A patch that cannot be applied as written; nothing is written."""


@dataclass(frozen=True)
class Operation:
    """One step of a patch, checked when read."""

    index: int
    part: str
    xpath: str
    op: str
    count: int = 1
    attribute: str | None = None
    value: str | None = None
    xml: str | None = None
    position: str = "last"

    @classmethod
    def parse(cls, index: int, raw: Any) -> Operation:
        where = f"operation {index}"
        if not isinstance(raw, dict):
            raise PatchError(f"{where} is not an object")
        unknown = set(raw) - {"part", "xpath", "op", "count", "attribute", "value", "xml",
                              "position"}
        if unknown:
            raise PatchError(f"{where} has unknown keys {sorted(unknown)}")
        try:
            step = cls(index=index, **raw)
        except TypeError as exc:
            raise PatchError(f"{where}: {exc}") from None
        if not isinstance(step.part, str) or not PATCHABLE.match(step.part):
            raise PatchError(f"{where}: part {step.part!r} is not a slide, layout, master, theme "
                             "or notes part (e.g. ppt/slides/slide2.xml)")
        if step.op not in OPS:
            raise PatchError(f"{where}: op {step.op!r} is not one of {', '.join(OPS)}")
        if not isinstance(step.count, int) or step.count < 1:
            raise PatchError(f"{where}: count must be a whole number of at least 1")
        if step.op in ("set", "unset") and not step.attribute:
            raise PatchError(f"{where}: {step.op} needs an attribute")
        if step.op in ("set", "text") and not isinstance(step.value, str):
            raise PatchError(f"{where}: {step.op} needs a string value")
        if step.op in ("replace", "insert") and not step.xml:
            raise PatchError(f"{where}: {step.op} needs xml")
        if step.position not in POSITIONS:
            raise PatchError(f"{where}: position must be one of {', '.join(POSITIONS)}")
        return step


def attribute_name(name: str) -> str:
    """``r:id`` -> Clark notation; a bare name stays as it is."""
    prefix, _, local = name.rpartition(":")
    if prefix:
        if prefix not in NAMESPACES:
            raise PatchError(f"unknown namespace prefix {prefix!r}")
        return f"{{{NAMESPACES[prefix]}}}{local}"
    return name


def fragment(step: Operation) -> etree._Element:
    try:
        return etree.fromstring((step.xml or "").encode(), PARSER)
    except etree.XMLSyntaxError as exc:
        raise PatchError(f"operation {step.index}: its xml is not well formed: {exc}") from None


def apply(step: Operation, root: etree._Element) -> None:
    """Apply one operation to a parsed part, in place."""
    try:
        found = root.xpath(step.xpath, namespaces=NAMESPACES)
    except etree.XPathError as exc:
        raise PatchError(f"operation {step.index}: bad xpath {step.xpath!r}: {exc}") from None
    elements = [e for e in found if isinstance(e, etree._Element)] if isinstance(found,
                                                                                   list) else []
    if len(elements) != step.count:
        raise PatchError(f"operation {step.index}: {step.xpath!r} matches {len(elements)} "
                         f"elements in {step.part}, not {step.count}")
    for element in elements:
        if step.op == "set":
            element.set(attribute_name(step.attribute or ""), step.value or "")
        elif step.op == "unset":
            element.attrib.pop(attribute_name(step.attribute or ""), None)
        elif step.op == "text":
            element.text = step.value
        elif step.op in ("remove", "replace"):
            parent = element.getparent()
            if parent is None:
                raise PatchError(f"operation {step.index}: cannot {step.op} the root element")
            if step.op == "replace":
                parent.replace(element, fragment(step))
            else:
                parent.remove(element)
        else:
            new = fragment(step)
            if step.position == "first":
                element.insert(0, new)
            elif step.position == "last":
                element.append(new)
            elif element.getparent() is None:
                raise PatchError(f"operation {step.index}: nothing goes {step.position} the root")
            elif step.position == "before":
                element.addprevious(new)
            else:
                element.addnext(new)


def patch_deck(base: Path, operations: list[Operation], out: Path) -> list[str]:
    """Write ``out``: ``base`` with the operations applied; return the parts changed."""
    with zipfile.ZipFile(base) as package:
        names = package.namelist()
        roots: dict[str, etree._Element] = {}
        for step in operations:
            if step.part not in names:
                raise PatchError(f"operation {step.index}: {base} has no part {step.part}")
            if step.part not in roots:
                if package.getinfo(step.part).file_size > MAX_PART_BYTES:
                    raise PatchError(f"{step.part} is larger than {MAX_PART_BYTES} bytes")
                roots[step.part] = etree.fromstring(package.read(step.part), PARSER)
            tag = roots[step.part].tag
            apply(step, roots[step.part])
            if roots[step.part].tag != tag:
                raise PatchError(f"operation {step.index} changed the root of {step.part}")
        handle, temporary = tempfile.mkstemp(suffix=".pptx", dir=out.parent)
        os.close(handle)
        try:
            with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as target:
                for info in package.infolist():
                    data = (etree.tostring(roots[info.filename], xml_declaration=True,
                                           encoding="UTF-8", standalone=True)
                            if info.filename in roots else package.read(info.filename))
                    target.writestr(info, data)
            check_opens(Path(temporary))
            os.replace(temporary, out)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    return sorted(roots)


def check_opens(deck: Path) -> None:
    """The patched deck must still open as a presentation."""
    from pptx import Presentation

    try:
        Presentation(str(deck))
    except Exception as exc:
        raise PatchError(f"the patched deck no longer opens: {type(exc).__name__}: {exc}") from None


def read_patch(path: Path) -> list[Operation]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PatchError(f"cannot read {path}: {exc}") from None
    if not isinstance(raw, list) or not raw:
        raise PatchError(f"{path} must hold a non-empty JSON list of operations")
    return [Operation.parse(index, item) for index, item in enumerate(raw)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("patch", nargs="?", default="patch.json", type=Path)
    parser.add_argument("--base", type=Path)
    parser.add_argument("--out", type=Path, default=Path("edited.pptx"))
    args = parser.parse_args(argv)
    base = args.base or (Path("edited.pptx") if Path("edited.pptx").exists()
                         else Path("source.pptx"))
    try:
        changed = patch_deck(base, read_patch(args.patch), args.out)
    except (PatchError, zipfile.BadZipFile, etree.XMLSyntaxError, OSError) as exc:
        print(f"patch not applied, nothing written: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.out} from {base}; changed {', '.join(changed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
