"""refig reporter `latex`: the report's tables as booktabs LaTeX."""
