"""Registers the figure-to-code family's plugins."""
