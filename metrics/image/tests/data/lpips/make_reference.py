"""Makes the LPIPS test pairs and records the ``lpips`` package's own torch values for them.

Run once, outside the test suite, in a throwaway environment with torch and ``lpips==0.1.4``
(the values in ``reference.json`` were made so, with torch 2.15.0 CPU, lpips 0.1.4):

    python make_reference.py /path/to/alexnet.ckpt

The ``lpips`` package builds torchvision's AlexNet, whose ImageNet weights it would download;
here they are set from the same checkpoint refig reads (kernels HWIO -> OIHW), so the check
compares the two forward passes on the same weights. The linear layers are the package's own
v0.1 ``alex.pth`` (the check also asserts the checkpoint's equal them).
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

HERE = Path(__file__).parent


def pairs() -> dict[str, tuple[Image.Image, Image.Image]]:
    """The test pairs, drawn without anti-aliasing or from seeded noise."""
    made = {}
    red, blue = Image.new("RGB", (256, 256), "white"), Image.new("RGB", (256, 256), "white")
    ImageDraw.Draw(red).line([(20, 200), (120, 60), (236, 150)], fill=(220, 30, 30), width=4)
    ImageDraw.Draw(blue).line([(20, 200), (120, 60), (236, 150)], fill=(30, 30, 220), width=4)
    made["red_blue_line"] = (red, blue)
    bars_a, bars_b = Image.new("RGB", (256, 256), "white"), Image.new("RGB", (256, 256), "white")
    for i, (h1, h2) in enumerate([(120, 100), (180, 190), (60, 90), (200, 150)]):
        ImageDraw.Draw(bars_a).rectangle([30 + 55 * i, 230 - h1, 70 + 55 * i, 230], fill="#1f77b4")
        ImageDraw.Draw(bars_b).rectangle([34 + 55 * i, 230 - h2, 74 + 55 * i, 230], fill="#ff7f0e")
    made["bars"] = (bars_a, bars_b)
    rng = np.random.default_rng(29)
    made["noise"] = tuple(
        Image.fromarray(rng.integers(0, 256, (128, 128, 3), dtype=np.uint8)) for _ in range(2)
    )
    made["identical"] = (bars_a, bars_a.copy())
    wide_a, wide_b = Image.new("RGB", (300, 200), "white"), Image.new("RGB", (300, 200), "white")
    ImageDraw.Draw(wide_a).ellipse([40, 30, 200, 170], outline="black", width=3)
    ImageDraw.Draw(wide_b).ellipse([60, 40, 230, 180], outline="black", width=3)
    made["wide_ellipse"] = (wide_a, wide_b)
    big_a, big_b = Image.new("RGB", (1024, 1024), "white"), Image.new("RGB", (1024, 1024), "white")
    for k in range(8):
        ImageDraw.Draw(big_a).line(
            [(0, 100 * k + 50), (1023, 1000 - 100 * k)], fill="green", width=6
        )
        ImageDraw.Draw(big_b).line(
            [(0, 100 * k + 60), (1023, 990 - 100 * k)], fill="green", width=6
        )
    made["large_lines"] = (big_a, big_b)
    return made


def main(checkpoint: Path) -> None:
    import lpips
    import torch

    weights = pickle.load(checkpoint.open("rb"))
    net = lpips.LPIPS(net="alex", version="0.1", pnet_rand=True, verbose=False).eval()
    convs = [module for module in net.net.modules() if isinstance(module, torch.nn.Conv2d)]
    with torch.no_grad():
        for i, conv in enumerate(convs):
            layer = weights["AlexNet_0"][f"Conv_{i}"]
            conv.weight.copy_(
                torch.from_numpy(np.ascontiguousarray(layer["kernel"].transpose(3, 2, 0, 1)))
            )
            conv.bias.copy_(torch.from_numpy(layer["bias"]))
        for i in range(5):
            own = getattr(net, f"lin{i}").model[-1].weight.numpy().reshape(-1)
            theirs = weights[f"NetLinLayer_{i}"]["Conv_0"]["kernel"].reshape(-1)
            assert np.array_equal(own, theirs), f"linear layer {i} differs"
    values = {}
    for name, (a, b) in pairs().items():
        a.save(HERE / f"{name}_a.png")
        b.save(HERE / f"{name}_b.png")

        def tensor(image: Image.Image) -> torch.Tensor:
            unit = np.asarray(image.convert("RGB"), dtype=np.float32) / 255.0
            return torch.from_numpy(unit.transpose(2, 0, 1)).unsqueeze(0).mul(2.0).sub(1.0)

        with torch.no_grad():
            values[name] = float(net(tensor(a), tensor(b)).item())
    (HERE / "reference.json").write_text(
        json.dumps({"torch": torch.__version__, "lpips": "0.1.4", "values": values}, indent=1)
        + "\n"
    )
    print(values)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
