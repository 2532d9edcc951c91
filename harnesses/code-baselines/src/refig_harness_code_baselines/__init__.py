"""Offline baselines of the figure-to-code family."""

__version__ = "0.1.0"
