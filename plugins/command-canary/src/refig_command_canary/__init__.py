"""The golden canary: a family's golden documents realised again and compared with the results
recorded on a machine set up as documented (docs/reproducibility.md)."""

from __future__ import annotations

from refig_command_canary.golden import GoldenDocument, GoldenSet

__all__ = ["GoldenDocument", "GoldenSet"]
