"""Code metrics of the figure-to-code family."""
