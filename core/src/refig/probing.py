"""Environment entries that are the same every time they are read on one machine.

An entry a component reports (:mod:`refig.provenance`) or a check caches by (the golden canary)
must not change between two processes of one machine: :func:`files_digest` reads a set of files
by content, remembering each file's digest on disk by its path, size and modification time;
:func:`probe` reads what a command prints, in the C locale, retried once with a longer timeout
and otherwise an error, never a half-read or an error message taken for a version.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from refig.errors import RefigError
from refig.home import cache_dir

#: Where :func:`files_digest` keeps each file's digest: ``{path: [size, mtime_ns, sha256]}``.
MEMO = Path("digests") / "files.json"
#: A file changed this recently is not remembered: another write within the file system's
#: timestamp granularity would keep its size and mtime (git's "racy" entries).
RACY_NS = 2_000_000_000
_memo_lock = threading.Lock()
_SHA256 = re.compile(r"[0-9a-f]{64}")


def files_digest(paths: Iterable[Path]) -> str:
    """sha256 over the bytes of ``paths`` in sorted order, each prefixed by its name and
    length (a model's weights, the fonts a renderer sees); a missing file counts as absent.
    Each file's digest is kept in ``$REFIG_CACHE_DIR/digests/files.json`` by its path, size
    and ``mtime_ns``, so a file is read again only when it changed (one modified in the last
    two seconds is read each time)."""
    with _memo_lock:
        memo, changed = _read_memo(), False
        total = hashlib.sha256()
        for path in sorted(set(paths)):
            try:
                stat = path.stat()
            except OSError:
                continue
            sha256 = _remembered(memo.get(str(path)), stat)
            if sha256 is None:
                sha256 = _file_sha256(path)
                if sha256 is None:
                    continue
                if time.time_ns() - stat.st_mtime_ns > RACY_NS:
                    memo[str(path)], changed = [stat.st_size, stat.st_mtime_ns, sha256], True
            total.update(f"{path.name}\0{stat.st_size}\0".encode())
            total.update(bytes.fromhex(sha256))
        if changed:
            _write_memo(memo)
    return total.hexdigest()


def _remembered(known: object, stat: os.stat_result) -> str | None:
    """The file's sha256 the memo holds, when it was taken of the file as it is now."""
    if isinstance(known, list) and known[:2] == [stat.st_size, stat.st_mtime_ns] and \
            len(known) == 3 and isinstance(known[2], str) and _SHA256.fullmatch(known[2]):
        return known[2]
    return None


def _read_memo() -> dict[str, object]:
    try:
        found = json.loads((cache_dir() / MEMO).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _write_memo(memo: dict[str, object]) -> None:
    """Replace the memo atomically (another process writing at once loses only its entries)."""
    path = cache_dir() / MEMO
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
        partial.write_text(json.dumps(memo), encoding="utf-8")
        partial.replace(path)
    except OSError:
        pass  # a read-only cache: the digest is right, it is only made again next time


def _file_sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def probe(argv: Sequence[str], *, timeout: float = 60.0, fix: str = "",
          env: Mapping[str, str] | None = None) -> str:
    """What ``argv`` prints on stdout (stripped), run in the C locale with ``env`` over this
    process's environment; stderr only when stdout is empty (a tool that prints its version
    there). A run that times out or exits non-zero is made once more with twice the timeout (a
    busy machine); a second failure raises a RefigError naming the command and why, with
    ``fix``, instead of an entry that says it."""
    env = {**os.environ, **(env or {}), "LC_ALL": "C"}
    said = ""
    for limit in (timeout, 2 * timeout):
        try:
            done = subprocess.run(list(argv), capture_output=True, text=True, timeout=limit,
                                  env=env, stdin=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            said = f"took longer than {limit:g} s"
            continue
        except OSError as exc:
            said = str(exc)
            break
        text = done.stdout.strip() or done.stderr.strip()
        if done.returncode == 0:
            return text
        said = f"exited {done.returncode}" + (f": {text.splitlines()[-1]}" if text else "")
    raise RefigError(f"cannot read this machine's environment: `{' '.join(argv)}` {said}",
                     fix=fix or "run it by hand to see why, repair or reinstall it, then again")

