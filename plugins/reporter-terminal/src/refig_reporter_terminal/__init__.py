"""refig's ``terminal`` and ``json`` reporters and ``refig suite info``."""
