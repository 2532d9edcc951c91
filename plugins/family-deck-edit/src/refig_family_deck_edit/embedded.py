"""What a SmartArt frame says (the node texts of its data model) and what an audio or video
object plays (its media part, by sha256, and its trim), read from one slide's elements."""

from __future__ import annotations

import hashlib

from lxml import etree

from refig_family_deck_edit.reader import Package, q
from refig_family_deck_edit.structure import Media

NS_P14 = "http://schemas.microsoft.com/office/powerpoint/2010/main"
#: The ``p:nvPr`` children that make a picture a media object, and what each plays.
_MEDIA = {q("a:videoFile"): "video", q("a:quickTimeFile"): "video", q("a:audioFile"): "audio",
          q("a:wavAudioFile"): "audio"}
#: SmartArt nodes read per diagram (real diagrams hold tens).
MAX_NODES = 2_000


def _text(body: etree._Element | None) -> str:
    if body is None:
        return ""
    lines = ["".join(t.text or "" for t in p.iter(q("a:t"))) for p in body.iter(q("a:p"))]
    return "\n".join(lines).strip()


def smartart_nodes(package: Package, part: str, frame: etree._Element) -> tuple[str, ...]:
    """The text of every content node (``dgm:pt`` of type ``node``, the default) of the
    diagram's data model, in the model's order: what an editor of the diagram changes."""
    ids = frame.find(f".//{q('dgm:relIds')}")
    rel = package.rels(part).get(ids.get(q("r:dm"), "") if ids is not None else "")
    if rel is None or rel.external or not package.has(rel.target):
        return ()
    model = package.xml(rel.target)
    nodes = [_text(point.find(q("dgm:t"))) for point in model.iter(q("dgm:pt"))
             if point.get("type", "node") == "node"]
    return tuple(nodes[:MAX_NODES])


def _ms(value: str | None) -> int | None:
    try:
        return round(float(value)) if value is not None else None
    except ValueError:
        return None


def media(package: Package, part: str, picture: etree._Element) -> Media | None:
    """The media a picture element plays (None: a plain picture). The poster frame is the
    picture's own image (``image_sha256``); the trim is ``p14:trim`` in milliseconds."""
    nv = picture.find(f"{q('p:nvPicPr')}/{q('p:nvPr')}")
    node = next((c for c in nv if c.tag in _MEDIA), None) if nv is not None else None
    if node is None:
        return None
    extension = nv.find(f".//{{{NS_P14}}}media")
    rid = (extension.get(q("r:embed")) if extension is not None else None) or \
        node.get(q("r:link")) or node.get(q("r:embed"))
    rel = package.rels(part).get(rid or "")
    sha = None
    if rel is not None and not rel.external and package.has(rel.target):
        sha = hashlib.sha256(package.read(rel.target)).hexdigest()
    trim = extension.find(f"{{{NS_P14}}}trim") if extension is not None else None
    return Media(kind=_MEDIA[node.tag], sha256=sha,
                 link=rel.target if rel is not None and rel.external else None,
                 trim_start_ms=_ms(trim.get("st")) if trim is not None else None,
                 trim_end_ms=_ms(trim.get("end")) if trim is not None else None)
