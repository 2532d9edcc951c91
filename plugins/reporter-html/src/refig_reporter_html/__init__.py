"""refig reporter `html`: a static, offline HTML report of a run."""
