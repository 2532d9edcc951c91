"""`refig doctor` with the workspace's plugins: LibreOffice, fonts, OCR models and Ray are checked,
and a machine without LibreOffice is told it cannot run the demo, with the apt command."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from refig.cli import run


def _checks(capsys) -> tuple[int, dict[str, dict]]:
    code = run(["doctor", "--json"])
    return code, {c["component"]: c for c in json.loads(capsys.readouterr().out)}


def test_plugins_report_what_they_need(capsys):
    code, checks = _checks(capsys)
    assert code == 0
    assert checks["LibreOffice"]["status"] == "ok" and checks["LibreOffice"]["required"] is False
    assert checks["LibreOffice"]["detail"].startswith("LibreOffice ")
    assert checks["fonts"] == {"component": "fonts", "status": "ok",
                               "detail": "Carlito, Caladea, Noto Sans CJK", "fix": None,
                               "required": False}
    ocr = checks["OCR models"]
    assert ocr["status"] == "ok" and "rapidocr-onnxruntime" in ocr["detail"]
    assert checks["Ray"]["status"] == "ok"
    assert checks["LPIPS"]["status"] in {"ok", "warn"}


def test_without_libreoffice_the_demo_cannot_run(capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # no soffice, no fc-list
    monkeypatch.delenv("REFIG_SOFFICE", raising=False)
    code, checks = _checks(capsys)
    assert code == 1
    office = checks["LibreOffice"]
    assert office["status"] == "missing" and office["required"] is True
    assert "apt-get install" in office["fix"] and "libreoffice-impress" in office["fix"]


def test_inside_a_virtualenv_uv_is_not_installed_with_user(capsys, monkeypatch):
    from refig.doctor import in_virtualenv

    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # no uv
    _, checks = _checks(capsys)
    assert checks["uv"]["status"] == "warn"
    if in_virtualenv():  # the workspace's .venv, as under `uv run`
        assert checks["uv"]["fix"] == f"{sys.executable} -m pip install uv"
    else:
        assert "--user" in checks["uv"]["fix"]


def test_the_refig_command_is_looked_for_where_a_shell_finds_it(capsys, monkeypatch, tmp_path):
    here = Path(sys.executable).parent
    monkeypatch.setenv("UV", "/usr/bin/uv")  # as `uv run` sets it, with its bin first on PATH
    monkeypatch.setenv("PATH", str(here))
    _, checks = _checks(capsys)
    command = checks["refig command"]
    assert command["status"] == "warn" and "uv run" in command["detail"]
    assert f"ln -s {here / 'refig'} ~/.local/bin/refig" in command["fix"]
    linked = tmp_path / "bin"
    linked.mkdir()
    (linked / "refig").symlink_to(here / "refig")
    monkeypatch.setenv("PATH", f"{here}:{linked}")
    _, checks = _checks(capsys)
    assert checks["refig command"] == {"component": "refig command", "status": "ok",
                                       "detail": str(linked / "refig"), "fix": None,
                                       "required": False}
