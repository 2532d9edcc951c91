"""Token normalisation and one-to-one matching (no OCR here)."""

from __future__ import annotations

from refig_metric_text.matching import match_tokens
from refig_toolkit_pptx.slide_text import word_tokens


def test_tokens_are_case_folded_nfkc_words() -> None:
    assert word_tokens("Cross-Attention ×2 (ﬁne) ＲｅＬＵ x_t") == [
        "cross",
        "attention",
        "2",
        "fine",
        "relu",
        "x",
        "t",
    ]


def test_exact_matching_respects_multiplicity() -> None:
    found = match_tokens(["the", "the", "encoder"], ["the", "encoder", "decoder"])
    assert found.matched == 2
    assert found.unmatched_left == ("the",)
    assert found.unmatched_right == ("decoder",)


def test_ocr_slips_match_fuzzily_but_short_labels_only_exactly() -> None:
    found = match_tokens(["atention", "encoder", "x1", "fc"], ["attention", "encodr", "x2", "fc"])
    assert found.matched == 3
    assert found.exact == 1
    assert found.unmatched_left == ("x1",)


def test_each_token_is_used_once() -> None:
    found = match_tokens(["transformer", "transformers"], ["transformer"])
    assert found.matched == 1
    assert found.unmatched_left == ("transformers",)


def test_unrelated_words_do_not_match() -> None:
    assert match_tokens(["memory", "bank"], ["decoder", "head"]).matched == 0
    assert match_tokens([], ["decoder"]).matched == 0
