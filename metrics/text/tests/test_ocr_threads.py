"""OCR on one onnxruntime thread per session (the default) reads what onnxruntime's own thread
pool reads: the thread count is a cost, never a change of result."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.plugin import RefigError
from refig_toolkit_imaging.ocr import THREADS_ENV, engine, models, ocr_threads, read_text


def test_one_thread_reads_the_lines_of_the_default_pool(source_png: Path) -> None:
    one = read_text(source_png, threads=1)
    pooled = read_text(source_png, threads=0)
    assert len(one) >= 6
    assert one == pooled  # the same texts, boxes and confidences, exactly


def test_the_default_is_one_thread_and_the_variable_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert ocr_threads() == 1
    monkeypatch.setenv(THREADS_ENV, "0")
    assert ocr_threads() == 0
    monkeypatch.setenv(THREADS_ENV, "two")
    with pytest.raises(RefigError, match="not a number of threads"):
        engine()


def test_the_sessions_run_on_the_threads_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_ENV, raising=False)
    session = models(engine())[0].session  # RapidOCR's detector session
    assert session.get_session_options().intra_op_num_threads == 1
