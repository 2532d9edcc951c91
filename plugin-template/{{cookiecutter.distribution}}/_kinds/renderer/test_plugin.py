import io
import zipfile

from PIL import Image
from refig.plugin import RenderJob
from refig.plugins import Registry

from {{ cookiecutter.module }}.plugin import ThumbnailRenderer


def _deck(path, thumbnail_size=(2000, 1125)):
    buffer = io.BytesIO()
    Image.new("RGB", thumbnail_size, "navy").save(buffer, format="JPEG")
    with zipfile.ZipFile(path, "w") as package:
        package.writestr("[Content_Types].xml", "<Types/>")
        package.writestr("docProps/thumbnail.jpeg", buffer.getvalue())
    return path


def test_renders_the_thumbnail_as_png(tmp_path):
    renderer = ThumbnailRenderer(width=640)
    (result,) = renderer.render([RenderJob(_deck(tmp_path / "a.pptx"))], tmp_path / "out")
    assert result.error is None
    with Image.open(result.png) as image:
        assert image.format == "PNG" and image.size == (640, 360)


def test_a_file_without_thumbnail_fails_typed(tmp_path):
    bad = tmp_path / "bad.pptx"
    bad.write_bytes(b"not a zip")
    (result,) = ThumbnailRenderer().render([RenderJob(bad)], tmp_path / "out")
    assert result.png is None and result.error.kind == "render_failed"


def test_refig_loads_the_installed_plugin():
    env = {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": "{{ cookiecutter.distribution }}"}
    chosen = Registry.load(environ=env).resolve("renderer", "{{ cookiecutter.name }}")
    assert chosen.create(width=100).settings == "width=100"
