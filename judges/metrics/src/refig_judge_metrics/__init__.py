"""The rubric filled from deterministic metrics: an offline proxy judge."""
