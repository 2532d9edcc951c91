"""What a family declares as its canary: golden documents in a folder, and how each is judged.

A :class:`GoldenSet` is a folder of golden documents its family's realiser makes again. The
folder's ``expected/`` holds what a machine set up as documented made of them
(``<stem>-<page>.png``) and ``environment.json``, that machine's environment
(:func:`~refig_command_canary.environment.canary_environment`) for this realiser.
``refig canary --update`` (a maintainer's action) writes both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from refig_command_canary.checking import Verdict


@dataclass(frozen=True)
class GoldenDocument:
    """One golden document: its file in the set's folder, the hard cases it holds, which pages
    are compared, and how: ``min_ssim`` None requires identical pixels (a deterministic
    realiser), else each page's SSIM with the expected page must reach it."""

    file: str
    cases: str
    pages: Literal["first", "all"] = "first"
    min_ssim: float | None = None

    def __post_init__(self) -> None:
        if self.min_ssim is not None and not 0.0 < self.min_ssim <= 1.0:
            raise ValueError(f"golden document {self.file}: min_ssim must lie in (0, 1]")

    @property
    def check(self) -> str:
        """How its pages are compared, as the table says it."""
        return "identical pixels" if self.min_ssim is None else f"SSIM ≥ {self.min_ssim:g}"


@dataclass(frozen=True)
class GoldenSet:
    """A family's golden canary (a :class:`refig.protocols.Canary`): ``documents`` in ``folder``,
    realised by ``renderer`` made with ``options``; ``fonts`` are the font families they need,
    whose absence fails the canary whatever the pixels say."""

    name: str
    folder: Path
    renderer: str
    documents: tuple[GoldenDocument, ...]
    options: Mapping[str, object] = field(default_factory=dict)
    fonts: tuple[str, ...] = ()

    @property
    def expected(self) -> Path:
        """The folder of expected results."""
        return self.folder / "expected"

    @property
    def key(self) -> tuple[str, str, str]:
        """What makes two declared sets one (two families sharing one set render it once)."""
        return (str(self.folder.resolve()), self.renderer, repr(sorted(self.options.items())))

    def check(self, *, quiet: bool = False) -> Verdict:
        """This set checked on this machine, or the verdict cached for its environment."""
        from refig_command_canary.checking import cached_verdict

        return cached_verdict(self, quiet=quiet)
