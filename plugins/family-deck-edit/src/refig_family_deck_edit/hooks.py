"""Registers the deck-edit family's contributions; each factory imports its module lazily."""

from __future__ import annotations
