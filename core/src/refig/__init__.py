"""refig: evaluate agents that turn pictures into editable documents."""

from importlib.metadata import PackageNotFoundError, version

from refig.hookspecs import hookimpl

try:
    __version__ = version("refig-core")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = ["__version__", "hookimpl"]
