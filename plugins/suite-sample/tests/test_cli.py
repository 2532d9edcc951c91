"""`refig suite build sample` through the real command line, and the builder listing."""

from __future__ import annotations

import json

from refig.cli import run


def test_build_validate_info(tmp_path, capsys):
    out = tmp_path / "suite"
    assert run(["suite", "build", "sample", "--out", str(out), "--n", "2", "--seed", "4",
                "--difficulty", "easy", "-q"]) == 0
    assert (out / "suite.json").is_file()
    assert run(["suite", "validate", str(out), "-q"]) == 0
    capsys.readouterr()
    assert run(["suite", "info", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["all"]["count"] == 2 and info["builder"] == "sample"


def test_unknown_builder_lists_sample(capsys):
    assert run(["suite", "build", "nope", "--out", "x"]) == 2
    assert "sample" in capsys.readouterr().err


def test_bad_difficulty_is_a_usage_error(tmp_path, capsys):
    assert run(["suite", "build", "sample", "--out", str(tmp_path), "--difficulty", "wild"]) == 2
    assert "easy, medium or hard" in capsys.readouterr().err


def test_width_option_reaches_the_builder(tmp_path, capsys):
    out = tmp_path / "suite"
    assert run(["suite", "build", "sample", "--out", str(out), "--n", "1", "--width", "900",
                "950", "-q"]) == 0
    assert json.loads((out / "suite.json").read_text())["params"]["width"] == [900, 950]
    assert run(["suite", "build", "sample", "--out", str(tmp_path / "bad"), "--n", "1",
                "--width", "950", "900", "-q"]) == 2
    assert "--width" in capsys.readouterr().err
