"""refig suite `orbit`: traceable retrieval of overview figures from arXiv source packages."""
