"""The cv baseline: a classical-vision reading of the figure, written as a python-pptx program."""
