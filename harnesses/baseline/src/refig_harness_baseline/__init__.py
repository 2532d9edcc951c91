"""Offline baseline harnesses: ``raster-paste`` and ``cv``."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("refig-harness-baseline")
except PackageNotFoundError:  # a source tree without installation
    __version__ = "0.0.0"
