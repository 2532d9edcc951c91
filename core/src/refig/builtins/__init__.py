"""Plugins that ship inside the core distribution and are always loaded."""
