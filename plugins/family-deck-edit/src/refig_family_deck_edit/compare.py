"""Requested changes (original -> target) against done changes (original -> prediction)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from refig_family_deck_edit.diff import Change, changes, same
from refig_family_deck_edit.structure import DeckStructure


class EditComparison(BaseModel):
    """The verdict of the structural diff, with its deterministic metrics."""

    model_config = ConfigDict(frozen=True)

    requested: tuple[Change, ...]
    done: tuple[Change, ...]
    achieved: tuple[Change, ...]
    missed: tuple[Change, ...]
    collateral: tuple[Change, ...]

    @property
    def recall(self) -> float:
        """Share of requested changes achieved (1 when nothing was requested)."""
        return len(self.achieved) / len(self.requested) if self.requested else 1.0

    @property
    def precision(self) -> float | None:
        """Share of done changes that were requested and right (None when nothing was done)."""
        if not self.done:
            return None
        return sum(1 for c in self.done if _achieves(c, self.achieved)) / len(self.done)

    @property
    def collateral_count(self) -> int:
        return len(self.collateral)

    def touched_slides(self) -> set[str]:
        """Slides (original numbers) any requested or done change touches."""
        return {c.slide for c in (*self.requested, *self.done) if c.slide != "deck"}


def _achieves(change: Change, achieved: tuple[Change, ...]) -> bool:
    return any(a.key == change.key for a in achieved)


def compare(original: DeckStructure, target: DeckStructure,
            prediction: DeckStructure) -> EditComparison:
    """Classify every requested change as achieved or missed, and every unrequested one done as
    collateral."""
    requested = changes(original, target)
    done = changes(original, prediction)
    by_key = {c.key: c for c in done}
    wanted = {c.key for c in requested}
    achieved, missed = [], []
    for change in requested:
        made = by_key.get(change.key)
        if made is not None and same(change.field, made.after, change.after):
            achieved.append(change)
        else:
            missed.append(change)
    collateral = [c for c in done if c.key not in wanted]
    return EditComparison(requested=tuple(requested), done=tuple(done), achieved=tuple(achieved),
                          missed=tuple(missed), collateral=tuple(collateral))


def readable(comparison: EditComparison, *, limit: int = 60, verdicts: bool = False) -> str:
    """The compact diff an IF judge reads: requested and done changes, one line each.

    With ``verdicts`` the deterministic classification (achieved, missed, collateral) follows.
    """
    def block(title: str, items: tuple[Change, ...]) -> list[str]:
        lines = [f"{title} ({len(items)}):"]
        lines += [f"- {c.line()}" for c in items[:limit]]
        if len(items) > limit:
            lines.append(f"- ... and {len(items) - limit} more")
        return lines

    lines = block("Changes from the original to the target (what was asked)", comparison.requested)
    lines += block("Changes from the original to the edited deck (what was done)", comparison.done)
    if verdicts:
        lines += block("Requested and achieved", comparison.achieved)
        lines += block("Requested but missed", comparison.missed)
        lines += block("Collateral (done, never asked)", comparison.collateral)
    return "\n".join(lines)
