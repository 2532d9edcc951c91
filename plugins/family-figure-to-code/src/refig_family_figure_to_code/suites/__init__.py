"""Suite builders of the figure-to-code family: `figcodebench` (import) and `code-sample`."""
