"""The whole-deck structure: what the deck inspector reads and the structural diff compares.

Plain pydantic records (stored as ``Inspection.structure``): every slide in order with its hidden
flag, layout, notes, transition and objects; each object carries the slide object tree's fields
plus the detail an edit can touch (runs, paragraphs, fills, table cells, chart data, links, alt
text, SmartArt node texts, audio and video).
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel, ConfigDict, Field

from refig_family_deck_edit.reader import ExternalLink


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Run(_Model):
    """A text run with the character properties set on it (None: inherited)."""

    text: str
    font: str | None = None
    size: float | None = None
    color: str | None = None
    bold: bool | None = None
    italic: bool | None = None
    underline: bool | None = None
    link: str | None = None


class Paragraph(_Model):
    """One paragraph: level, alignment, bullet (``char:•``, ``auto:arabicPeriod``, ``none``)."""

    level: int = 0
    align: str | None = None
    bullet: str | None = None
    runs: tuple[Run, ...] = ()

    @property
    def text(self) -> str:
        return "".join(run.text for run in self.runs)


class Series(_Model):
    """One chart series: its name and cached values."""

    name: str = ""
    values: tuple[float | None, ...] = ()


class Chart(_Model):
    """A chart part's type, categories and series (from the cached values)."""

    type: str = ""
    categories: tuple[str, ...] = ()
    series: tuple[Series, ...] = ()


class Media(_Model):
    """What an audio or video object plays: the embedded part's sha256 (or an external link)
    and the trim from its start and end, in milliseconds."""

    kind: str
    sha256: str | None = None
    link: str | None = None
    trim_start_ms: int | None = None
    trim_end_ms: int | None = None


class DeckObject(_Model):
    """One object of a slide (the slide's own layer), groups holding their children."""

    id: int | None = None
    name: str = ""
    kind: str
    x: int | None = None
    y: int | None = None
    w: int | None = None
    h: int | None = None
    rotation: float = 0.0
    z: int = 0
    hidden: bool = False
    placeholder: str | None = None
    geometry: str | None = None
    text: str = ""
    paragraphs: tuple[Paragraph, ...] = ()
    fill: str | None = None
    line: str | None = None
    image_sha256: str | None = None
    alt_text: str = ""
    link: str | None = None
    start_id: int | None = None
    end_id: int | None = None
    cells: tuple[tuple[str, ...], ...] = ()
    chart: Chart | None = None
    smartart: tuple[str, ...] = ()
    media: Media | None = None
    children: tuple[DeckObject, ...] = ()


class Transition(_Model):
    """A slide transition: its effect, speed and auto-advance time (ms)."""

    effect: str
    speed: str | None = None
    advance_ms: int | None = None


class Slide(_Model):
    """One slide in presentation order (``index`` from 1)."""

    index: int
    part: str
    slide_id: int | None = None
    hidden: bool = False
    layout: str = ""
    background: str | None = None
    section: str | None = None
    notes: str = ""
    transition: Transition | None = None
    animations: int = 0
    objects: tuple[DeckObject, ...] = ()

    def walk(self) -> Iterator[DeckObject]:
        """Every object, groups before their children."""
        stack = list(reversed(self.objects))
        while stack:
            obj = stack.pop()
            yield obj
            stack.extend(reversed(obj.children))

    @property
    def title(self) -> str:
        """The text of the title placeholder, if any."""
        for obj in self.walk():
            if obj.placeholder in {"title", "ctrTitle"}:
                return obj.text
        return ""


class Theme(_Model):
    """The theme of the first master: colour scheme and major/minor Latin fonts."""

    name: str = ""
    colors: dict[str, str] = Field(default_factory=dict)
    major_font: str | None = None
    minor_font: str | None = None


class Layout(_Model):
    """A slide layout and the master it belongs to."""

    part: str
    name: str = ""
    master: str = ""


class DeckStructure(_Model):
    """Everything the deck inspector reads from one .pptx."""

    slide_width: int
    slide_height: int
    slides: tuple[Slide, ...] = ()
    sections: tuple[str, ...] = ()
    masters: tuple[str, ...] = ()
    layouts: tuple[Layout, ...] = ()
    theme: Theme = Field(default_factory=Theme)
    #: Every relationship that reaches outside the package: the renderer made each inert.
    external_links: tuple[ExternalLink, ...] = ()

    @property
    def object_count(self) -> int:
        return sum(1 for slide in self.slides for _ in slide.walk())
