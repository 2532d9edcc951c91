"""The family's report sections on a run whose numbers the test chooses (the tables are checked
against scipy)."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.models import Configuration, Inspection
from refig.plugin import (
    Asset,
    Attempt,
    AttemptStatus,
    GateResult,
    Judgment,
    JudgmentStatus,
    MetricValue,
    Task,
    Usage,
)
from refig_family_figure_to_code.paper import FIGCODEBENCH
from refig_family_figure_to_code.report import SECTIONS
from refig_metric_code.crystal import pair_counts
from refig_toolkit_analysis import Context, Outcome, RunData
from scipy.stats import friedmanchisquare, kendalltau, pearsonr, spearmanr

#: Token lists of the tests' own: each task's reference and each configuration's program.
IGNORED = {("plt",): 1, (".",): 1}


def tokens_of(language: str, k: int, model: str | None) -> list[str]:
    """A reference (model None) or a generated program's tokens, varied by task and model."""
    base = ["plt", ".", "plot", "(", "x", f"{language}{k}", ")", "plt", ".", "title", "(", "'t'",
            ")", "grid", "(", ")"]
    if model == "m1":
        return [*base[:-3], "legend", "(", ")"]
    if model == "m2":
        return [*base[: 6 + k], ")"]
    return base

LANGUAGES = ("python", "r", "latex")
#: Two configurations of one model (as the offline baselines are: model `none`), told apart by
#: harness: every table keeps them apart.
MODELS = ("m1", "m2")
CONFIGS = {m: Configuration(model="none", harness=m, workflow="direct").id for m in MODELS}
#: The judge labels `--judge mmos:M1,M2` and `--judge mmos-swapped:M1,M2` store.
JURY, PROBE = "mmos:openai/j1,openai/j2", "mmos-swapped:openai/j1,openai/j2"


def run_data() -> tuple[RunData, dict]:  # type: ignore[type-arg]
    tasks, configs, outcomes, metrics, judgments, attempts = {}, {}, {}, {}, {}, []
    inspections: dict[str, Inspection] = {}
    truth: dict = {"tokens": {}, "ssim": [], "mmos": []}
    for m, model in enumerate(MODELS):
        config = Configuration(model="none", harness=model, workflow="direct")
        configs[config.id] = config
        for index, language in enumerate(LANGUAGES):
            for k in range(3):
                task_id = f"{language}-{k}"
                tasks[task_id] = Task(id=task_id, family="figure-to-code",
                                      params={"language": language},
                                      meta={"category": ("statistical", "temporal")[k % 2],
                                            "tier": ("easy", "medium", "hard")[k]},
                                      inputs={"figure": Asset(path="f.png", sha256="f" * 64)})
                artifact = f"{m}{index}{k}".ljust(64, "0")
                ran = not (model == "m2" and language == "latex" and k == 0)
                tokens = 1000 * (index + 1) + 100 * m + 10 * k
                attempt = Attempt(task_id=task_id, config_id=config.id,
                                  status=AttemptStatus.SUCCEEDED,
                                  usage=Usage(input_tokens=tokens, output_tokens=0),
                                  cost_usd=tokens / 1e5)
                attempts.append(attempt)
                inspections[artifact] = Inspection(artifact_sha256=artifact, inspector="t",
                                                   gate=GateResult(passed=True))
                ssim = 0.5 + 0.1 * k + 0.05 * m
                values = {"execution": 1.0 if ran else 0.0, "ssim": ssim if ran else None,
                          "ssim_weighted": ssim if ran else 0.0, "fcf": ssim / 2 if ran else 0.0,
                          "psnr": 20.0 + k if ran else None, "smuggling": 0.0}
                metrics[artifact] = {"": {("code", n): MetricValue(
                    artifact_sha256=artifact, metric="code", name=n, value=v)
                    for n, v in values.items()}}
                counts = pair_counts(tokens_of(language, k, None), tokens_of(language, k, model),
                                     IGNORED)
                metrics[artifact][""][("code", "crystalbleu_sentence")] = MetricValue(
                    artifact_sha256=artifact, metric="code", name="crystalbleu_sentence",
                    value=0.5, detail=counts.as_detail())
                metrics[artifact][""][("code", "codebertscore_f1")] = MetricValue(
                    artifact_sha256=artifact, metric="code", name="codebertscore_f1", value=None,
                    detail={"reason": "CodeBERTScore needs the model supplied locally"})
                total = 40 + 20 * k + 5 * m + index if ran else 0.0
                judgments[artifact] = [
                    Judgment(artifact_sha256=artifact, judge=name, judge_key=name,
                             rubric_sha256="r", rubric_version="1", repeat=0,
                             status=JudgmentStatus.OK, total=total + shift)
                    for name, shift in ((JURY, 0.0), (PROBE, 2.0))] if ran else []
                outcomes[(task_id, config.id)] = Outcome(
                    task_id, config.id, attempt, artifact, inspections[artifact],
                    gate_reason=None if ran else "runtime_error", values=metrics[artifact][""],
                    judgments=tuple(judgments[artifact]))
                truth["tokens"][(model, language)] = truth["tokens"].get((model, language), [])
                truth["tokens"][(model, language)].append(tokens)
                if ran:
                    truth["ssim"].append(ssim)
                    truth["mmos"].append(total)
                    truth.setdefault(("ssim", language), []).append(ssim)
                    truth.setdefault(("mmos", language), []).append(total)
    data = RunData(root=Path("."), store=None, suite=None, tasks=tasks,  # type: ignore[arg-type]
                   configs=configs, outcomes=outcomes, attempts=attempts, inspections=inspections,
                   renders={}, metrics=metrics, judgments=judgments, preferences=[],
                   task_order=sorted(tasks), config_order=sorted(configs))
    return data, truth


def tables() -> tuple[dict, dict]:  # type: ignore[type-arg]
    data, truth = run_data()
    ctx = Context(data=data)
    built = {t.key: t for section in SECTIONS for t in section.build(ctx)}
    return built, truth


def test_language_table_counts_failures_in_weighted_values_only() -> None:
    built, _ = tables()
    rows = {(r["language"], r["config"]): r for r in built["code_by_language"].rows}
    assert len(rows) == 6
    latex = rows[("latex", CONFIGS["m2"])]
    assert latex["n"] == 3 and latex["execution"] == pytest.approx(2 / 3)
    ran = [0.5 + 0.1 * k + 0.05 for k in (1, 2)]
    assert latex["ssim"] == pytest.approx(sum(ran) / 2)
    assert latex["ssim_weighted"] == pytest.approx(sum(ran) / 3)
    assert latex["mmos"] == pytest.approx((0 + 67 + 87) / 3)  # failed run scores 0
    tiers = {(r["tier"], r["config"]) for r in built["code_by_tier"].rows}
    assert ("hard", CONFIGS["m1"]) in tiers and len(built["code_by_category"].rows) == 4
    # by category: 3 tasks per language and category split 2/1 (k % 2), counted as tasks
    by_category = {(r["category"], r["config"]): r["n"] for r in built["code_by_category"].rows}
    assert by_category[("statistical", CONFIGS["m1"])] == 6


def test_friedman_kendall_cost_and_position_bias_match_scipy() -> None:
    built, truth = tables()
    row = next(r for r in built["code_friedman"].rows if r["quantity"] == "tokens")
    blocks = [[sum(truth["tokens"][(m, lang)]) / 3 for lang in sorted(LANGUAGES)]
              for m in MODELS]
    expected = friedmanchisquare(*zip(*blocks, strict=True))
    assert row["chi2"] == pytest.approx(expected.statistic) and row["p"] == pytest.approx(
        expected.pvalue)
    tau = next(r for r in built["code_kendall"].rows if r["metric"] == "ssim")
    assert tau["tau"] == pytest.approx(kendalltau(truth["ssim"], truth["mmos"]).statistic)
    cost = {r["config"]: r for r in built["code_mmos_cost"].rows}
    assert set(cost) == set(CONFIGS.values())
    assert cost[CONFIGS["m1"]]["cost"] < cost[CONFIGS["m2"]]["cost"]
    assert built["code_position_bias"].rows[0]["shift"] == pytest.approx(2.0)
    assert built["code_tasks"].detail and len(built["code_tasks"].rows) == 18


def test_configurations_that_made_no_model_call_are_no_friedman_blocks() -> None:
    import dataclasses
    import warnings

    data, _ = run_data()  # as the offline baselines: no tokens, no cost
    data.outcomes = {key: dataclasses.replace(outcome, attempt=outcome.attempt.model_copy(
        update={"usage": Usage(), "cost_usd": None})) for key, outcome in data.outcomes.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scipy warns on the all-tie blocks it was handed before
        friedman = next(s for s in SECTIONS if s.name == "code-friedman")
        [table] = friedman.build(Context(data=data))
    assert table.key == "code_friedman" and table.insufficient is not None
    assert all(row["chi2"] is None and row["configs"] == 0 for row in table.rows)


def test_crystalbleu_is_the_corpus_value_of_each_group_and_codebertscore_says_why_empty() -> None:
    import warnings

    from crystalbleu import corpus_bleu
    from nltk.translate.bleu_score import SmoothingFunction

    built, _ = tables()
    table = built["code_by_language"]
    for row in table.rows:
        model = next(m for m in MODELS if CONFIGS[m] == row["config"])
        refs = [[tokens_of(row["language"], k, None)] for k in range(3)]
        hyps = [tokens_of(row["language"], k, model) for k in range(3)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = corpus_bleu(refs, hyps, ignoring=IGNORED,
                                   smoothing_function=SmoothingFunction().method3)
        assert row["crystalbleu"] == pytest.approx(expected, rel=1e-12)
        assert row["codebertscore_f1"] is None
    assert any("CodeBERTScore —: CodeBERTScore needs the model" in n for n in table.notes)
    assert "crystalbleu_sentence" in built["code_tasks"].rows[0]


def test_image_metrics_against_mmos_per_language_match_scipy() -> None:
    built, truth = tables()
    rows = {(r["language"], r["metric"]): r for r in built["code_correlation_by_language"].rows}
    assert {language for language, _ in rows} == set(LANGUAGES)
    for language in LANGUAGES:
        ssim, mmos = truth[("ssim", language)], truth[("mmos", language)]
        row = rows[(language, "ssim")]
        assert row["n"] == len(ssim)
        assert row["kendall"] == pytest.approx(kendalltau(ssim, mmos).statistic)
        assert row["spearman"] == pytest.approx(spearmanr(ssim, mmos).statistic)
        assert row["pearson"] == pytest.approx(pearsonr(ssim, mmos).statistic)


def test_a_smuggler_is_never_marked_best() -> None:
    # m2's programs draw the reference's own image (smuggling 1): pixel metrics are perfect,
    # and it was marked best in PSNR, SSIM and FCF beside "Smuggled 100%".
    import dataclasses

    data, _ = run_data()
    smuggled = {}
    for key, outcome in data.outcomes.items():
        if outcome.config_id == CONFIGS["m2"]:
            values = {**outcome.values}
            for name, value in (("smuggling", 1.0), ("psnr", 99.0), ("ssim", 1.0),
                                ("ssim_weighted", 1.0), ("fcf", 1.0)):
                values[("code", name)] = MetricValue(
                    artifact_sha256=outcome.artifact or "", metric="code", name=name, value=value)
            outcome = dataclasses.replace(outcome, values=values, gate_reason=None)
        smuggled[key] = outcome
    data.outcomes = smuggled
    built = {t.key: t for section in SECTIONS for t in section.build(Context(data=data))}
    for key in ("code_by_language", "code_by_category", "code_by_tier"):
        table = built[key]
        honest = {i for i, r in enumerate(table.rows) if r["config"] == CONFIGS["m1"]}
        for column in ("psnr", "ssim", "ssim_weighted", "fcf"):
            if any(c.key == column for c in table.columns):
                assert table.best_rows(column) <= honest, (key, column)
        assert any("smuggled" in note for note in table.notes)


def test_figcodebench_paper_tables_are_the_family_tables() -> None:
    """``--paper figcodebench``: Tables 4 and 9 are tables this family computes (not empty on
    this run); Figure 1 is listed as one refig does not draw."""
    built, _ = tables()
    for item in FIGCODEBENCH.items:
        if item.missing is not None:
            assert item.name == "figure1"
            continue
        for part in item.parts:
            assert part.table in built and not built[part.table].empty, item.name
    assert [i.name for i in FIGCODEBENCH.items] == ["table4", "table9", "figure1"]
