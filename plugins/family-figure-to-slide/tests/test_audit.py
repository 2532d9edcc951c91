"""The object audit a judge sees: counts, connectors, raster share, paste flag, text sample."""

from __future__ import annotations

from refig_family_figure_to_slide.audit import object_audit
from refig_toolkit_pptx import Endpoint, ObjectKind, ObjectTree, SlideObject


def _tree(*objects, background=None):
    return ObjectTree(slide_width=100, slide_height=100, objects=objects,
                      background_image_sha256=background)


BOX = SlideObject(id=1, kind=ObjectKind.AUTO_SHAPE, text="Encoder")
TARGET = SlideObject(id=3, kind=ObjectKind.TEXT_BOX, text="Decoder")
LINK = SlideObject(id=2, kind=ObjectKind.CONNECTOR, start=Endpoint(shape_id=1, site=0),
                   end=Endpoint(shape_id=3, site=2), end_arrow="triangle")


def test_counts_connectors_and_text_from_the_tree_alone():
    text = object_audit(_tree(BOX, LINK, TARGET), {})
    assert text.splitlines() == [
        "objects: 3 shown (1 text box, 1 auto shape, 1 connector)",
        "connectors: 1 native, 1 bound at both ends (free lines and arrow heads not audited)",
        "raster: 0 pictures; source figure pasted: not checked; flattened: not checked",
        'text: 14 characters of native text in 2 distinct strings: "Encoder" | "Decoder"',
    ]


def test_metric_values_fill_in_the_audit():
    metrics = {
        "connector-audit.connector_count": 4, "connector-audit.bound_connectors": 2,
        "connector-audit.half_bound_connectors": 1, "connector-audit.free_lines": 3,
        "connector-audit.arrow_heads": 5, "flattening.raster_area_ratio": 0.97,
        "flattening.pasted_source": 1, "flattening.flattened": 1, "text.recall": 0.25,
    }
    picture = SlideObject(id=9, kind=ObjectKind.PICTURE)
    text = object_audit(_tree(picture, BOX, background="ab" * 32), metrics)
    assert "connectors: 4 native, 2 bound at both ends, 1 at one end; 3 free lines; " \
           "5 arrow heads" in text
    assert "raster: 1 picture + a background picture, images cover 97% of the slide; " \
           "source figure pasted: YES; flattened: YES" in text
    assert "25% of the source's words found" in text


def test_hidden_objects_are_counted_apart_and_the_sample_is_bounded():
    hidden = SlideObject(id=5, kind=ObjectKind.PICTURE, hidden=True)
    many = [SlideObject(id=10 + i, kind=ObjectKind.TEXT_BOX, text=f"label {i} " + "x" * 60)
            for i in range(20)]
    text = object_audit(_tree(hidden, *many), {})
    first = text.splitlines()[0]
    assert first == "objects: 20 shown (20 text boxes); 1 hidden"
    assert "(+8 more)" in text and "…" in text
    assert len(text) < 1200
    assert object_audit(_tree(hidden, *many), {}) == text


def test_an_unreadable_slide_says_so():
    assert object_audit(None, {}) == "objects: none read (the slide did not open)"
