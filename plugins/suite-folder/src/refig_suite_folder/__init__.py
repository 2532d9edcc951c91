"""refig suite `folder`: a suite from a folder of figures with optional provenance."""
