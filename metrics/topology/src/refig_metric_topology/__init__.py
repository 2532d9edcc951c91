"""refig metric `topology`: a slide's nodes and directed edges against a figure annotation."""
