"""refig's Ray executor."""
