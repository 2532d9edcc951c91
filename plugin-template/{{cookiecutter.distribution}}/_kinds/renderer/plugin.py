"""Renders a deck by its embedded thumbnail: instant, low fidelity, no office suite needed."""

import io
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

from refig.plugin import ErrorInfo, RenderJob, RenderOutput, Renderer
from refig_toolkit_imaging import ImageError, open_image

THUMBNAIL = "docProps/thumbnail.jpeg"
MAX_THUMBNAIL_BYTES = 16 * 1024 * 1024


class ThumbnailRenderer(Renderer):
    """Turns ``docProps/thumbnail.jpeg`` into a PNG of at most ``width`` pixels across."""

    version = "thumbnail-1"
    fonts: tuple[str, ...] = ()

    def __init__(self, width: int = 1280):
        self.width = int(width)
        self.settings = f"width={self.width}"

    def render(self, jobs: Sequence[RenderJob], out_dir: Path) -> list[RenderOutput]:
        """One page per job: the thumbnail shows the first slide only."""
        out_dir.mkdir(parents=True, exist_ok=True)
        return [self._render_one(Path(job.path), out_dir) for job in jobs]

    def _render_one(self, path: Path, out_dir: Path) -> RenderOutput:
        started = time.monotonic()
        try:
            with zipfile.ZipFile(path) as package:
                info = package.getinfo(THUMBNAIL)
                if info.file_size > MAX_THUMBNAIL_BYTES:
                    raise ImageError(f"thumbnail is {info.file_size} bytes")
                image = open_image(package.read(info))
        except (OSError, KeyError, zipfile.BadZipFile, ImageError) as exc:
            error = ErrorInfo(kind="render_failed", message=f"{path.name}: {exc}")
            return RenderOutput(error=error, seconds=time.monotonic() - started)
        if image.width > self.width:
            image = image.resize((self.width, round(image.height * self.width / image.width)))
        png = out_dir / f"{path.stem}.png"
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        png.write_bytes(buffer.getvalue())
        return RenderOutput(pages=(png,), seconds=time.monotonic() - started)

    def close(self) -> None:
        """No processes to stop."""
