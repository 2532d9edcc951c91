"""refig command ``refig harness``: the pinned harness CLIs installed, listed and checked."""
