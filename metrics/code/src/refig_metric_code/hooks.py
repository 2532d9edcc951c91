"""Registers the code metrics."""
