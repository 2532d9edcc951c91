"""LibreOffice reads the fontconfig configuration refig's process names (``FONTCONFIG_FILE``):
the variable reaches the confined office and the file is visible in its sandbox, so that the
fonts ``fc-list`` reports to refig are the fonts LibreOffice sees."""

from __future__ import annotations

import pytest
from refig.plugin import SandboxPolicy, UsageError
from refig_renderer_libreoffice.confinement import Confinement


def test_fontconfig_file_reaches_the_office_and_is_readable_in_its_sandbox(tmp_path, monkeypatch):
    config = tmp_path / "conf" / "fonts.conf"
    config.parent.mkdir()
    config.write_text("<fontconfig/>", encoding="utf-8")
    monkeypatch.setenv("FONTCONFIG_FILE", str(config))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never")
    try:
        confinement = Confinement(SandboxPolicy.create("bwrap", network=False))
    except UsageError as exc:  # a machine without bubblewrap
        pytest.skip(f"bubblewrap: {exc}")
    env = confinement.env(tmp_path / "scratch")
    assert env["FONTCONFIG_FILE"] == str(config) and "OPENAI_API_KEY" not in env
    argv = confinement.command(["soffice"], folder=tmp_path / "scratch", writable=[])
    bound = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--ro-bind-try"]
    assert str(config) in bound
