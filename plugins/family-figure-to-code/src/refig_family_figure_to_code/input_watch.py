"""Proof, from the kernel, that a program never opened its visible input images (inotify).

A correct reference program's image is its figure, so the copy check (:mod:`.copies`) would
run every reference a second time with a decoy. That run can only matter if the program read
the input; a program proven never to have opened it cannot have copied it. The proof is an
inotify watch on each input's inode, which the kernel reports on whatever name or mount reached
it: a plain open, a hard link or symlink, ``/proc/self/fd``, a bind or overlay mount, a child
process (``cp``), io_uring; ``mmap`` needs an open first. Linux reports every open of a file
from 6.5 on (``fsnotify_open`` moved into ``do_dentry_open``; before, some open paths were
silent), so on older kernels there is no proof and the check runs the program again.

Each input image (the inputs an image can copy, :func:`.copies.may_be_copied`; a program reads
its data files, which proves nothing) is copied into a private staging folder (next to the
workspace, never shown to a sandbox), watched, then renamed into the workspace: it is watched
before any program can see it, and the watch's own rename is the only event expected. From
then on the input is touched by any open, read, write, move or deletion, a lost event (queue
overflow) or, at the end, the inode no longer at its place or holding another name (a hard link
that outlived the run).
Metadata changes alone (``IN_ATTRIB``: owner, mode, times, link count) reveal nothing of the
content, and refig's own hand-over of the workspace to the program's uid makes one; a link
made through them is caught by the name check or by the open that reads it.

What the watch cannot see, the decoy run cannot either: another copy of the same picture
elsewhere in the sandbox (a figure packaged inside a bound folder) is not a visible input.
"""

from __future__ import annotations

import itertools
import os
import platform
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from inotify_simple import INotify, flags, masks

#: The first Linux that reports an open of a watched file whatever path opened it.
MIN_KERNEL = (6, 5)
#: Events that reveal nothing of a file's content (owner, mode, times, link count).
_METADATA = flags.ATTRIB
#: What removing a workspace does to an input it alone holds.
_REMOVAL = flags.ATTRIB | flags.DELETE_SELF | flags.IGNORED


def kernel_reports_every_open(release: str | None = None) -> bool:
    """Whether this kernel (``release``: ``uname -r``) reports every open to inotify."""
    if release is None:
        if platform.system() != "Linux":
            return False
        release = platform.release()
    parts = release.split("-", 1)[0].split(".")
    try:
        return (int(parts[0]), int(parts[1])) >= MIN_KERNEL
    except (IndexError, ValueError):
        return False


@dataclass
class _Placed:
    """One watched input: where it was put and which inode it is."""

    target: Path
    device: int
    inode: int
    moved_in: bool = False
    removing: bool = False


class InputWatch:
    """Watches the inputs it places into workspaces; ``touched`` once anything but refig's
    own placement and removal reached one of them (sticky)."""

    def __init__(self, inotify: INotify, staging: Path):
        self._inotify = inotify
        self._staging = staging
        self._names = itertools.count()
        self._placed: dict[int, _Placed] = {}
        self.touched = False

    @classmethod
    def start(cls, beside: Path) -> InputWatch | None:
        """A watch staging its copies next to ``beside`` (the folder that holds the
        workspaces, so a rename moves them in), or None where no proof is possible (another
        system, a kernel before :data:`MIN_KERNEL`, no inotify instance left)."""
        if not kernel_reports_every_open():
            return None
        try:
            inotify = INotify(nonblocking=True)
        except OSError:
            return None
        return cls(inotify, Path(tempfile.mkdtemp(prefix="refig-staging-", dir=beside)))

    def place(self, source: Path, target: Path) -> None:
        """Copy ``source`` to ``target``, watched from before it appears there."""
        staged = self._staging / str(next(self._names))
        shutil.copyfile(source, staged)
        try:
            wd = self._inotify.add_watch(staged, masks.ALL_EVENTS | flags.DONT_FOLLOW)
            stat = staged.lstat()
            os.rename(staged, target)
        except OSError:  # no watch left, or another filesystem: placed without proof
            self.touched = True
            shutil.move(staged, target)
            return
        self._placed[wd] = _Placed(target, stat.st_dev, stat.st_ino)
        self._drain()  # takes the rename's own event now: a later one cannot merge into it

    def _drain(self) -> None:
        for event in self._inotify.read(timeout=0):
            placed = self._placed.get(event.wd)
            if placed is None or event.mask & flags.Q_OVERFLOW:
                self.touched = True
                continue
            if not placed.moved_in:
                placed.moved_in = event.mask == flags.MOVE_SELF
                self.touched |= not placed.moved_in
            elif placed.removing:
                self.touched |= bool(event.mask & ~_REMOVAL)
            else:
                self.touched |= bool(event.mask & ~_METADATA)
            if event.mask & flags.IGNORED:
                del self._placed[event.wd]

    def untouched(self) -> bool:
        """True when nothing but refig reached a placed input so far, and each is still the
        file placed, under its own name alone."""
        self._drain()
        for placed in self._placed.values():
            if placed.removing:
                continue
            try:
                stat = placed.target.lstat()
            except OSError:
                self.touched = True
                continue
            self.touched |= ((stat.st_dev, stat.st_ino) != (placed.device, placed.inode)
                             or stat.st_nlink != 1)
        return not self.touched

    def before_removal(self, folder: Path) -> None:
        """Say that refig is about to remove ``folder``: its inputs may now be unlinked."""
        self._drain()
        for placed in self._placed.values():
            if folder in placed.target.parents:
                placed.removing = True

    def after_removal(self) -> None:
        """After the removal: an input still alive (another name, an open file) is touched."""
        self._drain()
        self.touched |= any(placed.removing for placed in self._placed.values())

    def close(self) -> None:
        """Stop watching and remove the staging folder."""
        self._inotify.close()
        shutil.rmtree(self._staging, ignore_errors=True)
