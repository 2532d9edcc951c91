"""refig's standard workflows: ``direct`` and ``specialized``."""
