"""Stored objects are checked against their sha256 before work reads them.

A slide, a source figure or a rendering that is missing or whose bytes changed is damage to the
run store, never evidence about the agent: the stages leave such items out (no gate verdict, no
metric, no judgment), the rest of the work goes on, and the command ends with a
:class:`StoreDamaged` error naming each object, the run and the fix (``refig repair RUN``).
Once the objects are whole again (restored, or re-made by ``refig repair``), the next run does
the work that was left out. Hashes are checked once per process per file version (size and
mtime), so a run of thousands of artifacts hashes each file once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from refig.store import ObjectStore, RunStore, sha256_file
from refig.store_marks import StoreDamaged

_verified: dict[tuple[str, int, int], bool] = {}
_lock = threading.Lock()


def intact(objects: ObjectStore, sha256: str) -> bool:
    """True when the object exists and its bytes hash to its name."""
    path = objects.path(sha256)
    try:
        info = path.stat()
    except OSError:
        return False
    key = (str(path), info.st_size, info.st_mtime_ns)
    with _lock:
        known = _verified.get(key)
    if known is None:
        try:
            known = sha256_file(path) == sha256
        except OSError:
            known = False
        with _lock:
            _verified[key] = known
    return known


@dataclass(frozen=True)
class DamagedObject:
    """One object that is missing or does not match its hash, and what it was for."""

    sha256: str
    what: str
    missing: bool

    def line(self) -> str:
        state = "missing" if self.missing else "does not match its sha256"
        return f"{self.what}: object {self.sha256[:16]}... {state}"


@dataclass
class Damage:
    """The damaged objects one command met; thread-safe."""

    store: RunStore
    found: dict[str, DamagedObject] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, sha256: str | None, what: str) -> bool:
        """True when the object is whole (or there is none); else note it and return False."""
        if sha256 is None or intact(self.store.objects, sha256):
            return True
        missing = not self.store.objects.path(sha256).is_file()
        with self._lock:
            self.found.setdefault(sha256, DamagedObject(sha256, what, missing))
        return False

    def error(self) -> StoreDamaged | None:
        """The error that ends the command, or None when nothing was damaged."""
        if not self.found:
            return None
        items = sorted(self.found.values(), key=lambda d: d.what)
        shown = "; ".join(d.line() for d in items[:5])
        more = f"; and {len(items) - 5} more" if len(items) > 5 else ""
        return StoreDamaged(
            f"the run store {self.store.root} is damaged: {len(items)} objects cannot be used "
            f"({shown}{more}); the work that needs them was left out, not scored",
            path=self.store.objects.root,
            fix=f"`refig repair {self.store.root}` re-makes renderings and, with --suite DIR, "
            "restores the suite's figures; put back other objects from a backup, then run the "
            "same command again to do the work left out",
        )

