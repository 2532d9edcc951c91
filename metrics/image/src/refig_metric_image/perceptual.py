"""LPIPS (Zhang et al. 2018, AlexNet, v0.1), optional, with weights read from local files only.

LPIPS needs two sets of weights: the linear calibration layers, which ship inside the ``lpips``
wheel, and torchvision's ImageNet AlexNet backbone, which torchvision would download on first use.
refig never downloads: the backbone is read from ``<dir>/checkpoints/alexnet-owt-7be5be79.pth``,
where ``<dir>`` is the ``lpips_weights`` option or the ``REFIG_LPIPS_WEIGHTS`` environment variable.
Without them the value is None, with a message saying how to get them.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

ENV_VAR = "REFIG_LPIPS_WEIGHTS"
BACKBONE_FILE = "alexnet-owt-7be5be79.pth"
BACKBONE_URL = "https://download.pytorch.org/models/" + BACKBONE_FILE
#: torchvision AlexNet ``features`` index -> the LPIPS slice that holds it.
_SLICE_OF_LAYER = {0: 1, 1: 1, 2: 2, 3: 2, 4: 2, 5: 3, 6: 3, 7: 3, 8: 4, 9: 4, 10: 5, 11: 5}

INSTALL_HINT = "pip install 'refig-metric-image[lpips]'  (torch, torchvision and lpips)"


class LpipsUnavailable(Exception):
    """LPIPS cannot run here; the message says why and how to fix it."""


def weights_dir(option: str | Path | None) -> Path:
    """The configured weights directory, or :class:`LpipsUnavailable` saying how to set one."""
    value = option or os.environ.get(ENV_VAR)
    if not value:
        raise LpipsUnavailable(
            f"LPIPS is off: no weights directory. Set {ENV_VAR} (or the metric option "
            f"lpips_weights) to a directory holding checkpoints/{BACKBONE_FILE} "
            f"(download it from {BACKBONE_URL}), and {INSTALL_HINT}."
        )
    return Path(value).expanduser()


def backbone_state(model_state_keys: set[str], weights: dict[str, Any]) -> dict[str, Any]:
    """torchvision AlexNet ``features.<i>.*`` renamed to the LPIPS ``net.slice<k>.<i>.*``."""
    renamed = {}
    for key, value in weights.items():
        head, _, rest = key.partition(".")
        index, _, param = rest.partition(".")
        if head == "features" and index.isdigit() and int(index) in _SLICE_OF_LAYER:
            renamed[f"net.slice{_SLICE_OF_LAYER[int(index)]}.{index}.{param}"] = value
    missing = {k for k in model_state_keys if k.startswith("net.")} - renamed.keys()
    if missing:
        raise LpipsUnavailable(f"the AlexNet weights lack {sorted(missing)[:3]}...: wrong file?")
    return renamed


class Lpips:
    """A loaded LPIPS model; thread-safe, loaded once per weights directory."""

    _models: dict[Path, Any] = {}  # noqa: RUF012 - a process-wide cache shared by instances
    _lock = threading.Lock()

    def __init__(self, weights: str | Path | None = None):
        self.weights = weights

    def model(self) -> Any:
        """The LPIPS network, or :class:`LpipsUnavailable`."""
        directory = weights_dir(self.weights)
        backbone = directory / "checkpoints" / BACKBONE_FILE
        try:
            import lpips
            import torch
        except ImportError as exc:
            raise LpipsUnavailable(
                f"LPIPS needs torch, torchvision and lpips, which are not installed "
                f"({exc.name} is missing): {INSTALL_HINT}"
            ) from exc
        if not backbone.is_file():
            raise LpipsUnavailable(
                f"no AlexNet weights at {backbone}: download {BACKBONE_URL} there "
                f"(or point {ENV_VAR} at a directory holding checkpoints/{BACKBONE_FILE})"
            )
        with self._lock:
            if directory not in self._models:
                # pnet_rand builds the backbone without torchvision's download; the linear
                # layers come from the lpips wheel, the backbone from the local file.
                net = lpips.LPIPS(net="alex", version="0.1", pnet_rand=True, verbose=False)
                state = torch.load(backbone, map_location="cpu", weights_only=True)
                net.load_state_dict(backbone_state(set(net.state_dict()), state), strict=False)
                self._models[directory] = net.eval()
            return self._models[directory]

    def distance(self, a: Image.Image, b: Image.Image) -> float:
        """LPIPS distance of two RGB images of one size (0 for identical images)."""
        net = self.model()  # raises LpipsUnavailable before torch is touched
        import torch

        def tensor(image: Image.Image) -> Any:
            pixels = np.asarray(image.convert("RGB"), dtype=np.float32) / 127.5 - 1.0
            return torch.from_numpy(pixels).permute(2, 0, 1).unsqueeze(0)

        with torch.no_grad():
            return float(net(tensor(a), tensor(b)).item())
