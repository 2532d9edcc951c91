"""figure-to-code judges: the MMOS jury and the `code-metrics` proxy."""
