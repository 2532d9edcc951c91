"""refig reporter `figures`: the report's figures with matplotlib (PNG, SVG and PDF)."""
