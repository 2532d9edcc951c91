"""ReFigBench's tables and figures as ``refig report RUN --paper refigbench --latex DIR`` writes
them (see docs/reports.md, "A paper's tables").

The paper's protocol judges each artifact three times; Table 2 and the first-run column of the
direction agreement are the first judging run alone, the per-run tables (18, 20) put every run
side by side, and the other items read the report as its options say (by default each artifact's
mean over its repeats). Items whose number in the paper is not confirmed are named for what they
hold.
"""

from __future__ import annotations

from refig_toolkit_analysis import Paper, PaperItem, Part

FIRST_RUN = 1

REFIGBENCH = Paper(
    name="refigbench",
    title="ReFigBench",
    family="figure-to-slide",
    items=(
        PaperItem("table2", "Configuration means per rubric axis and total, first judging run",
                  (Part("means", FIRST_RUN),)),
        PaperItem("table6", "Judge against human direction agreement by absolute judge margin",
                  (Part("direction", FIRST_RUN, "first judging run, every decisive vote"),
                   Part("direction", None, "mean of judging runs, zero margins excluded"))),
        PaperItem("table18", "Configuration means per judging run", (Part("run_means"),)),
        PaperItem("table20", "Paired effects per judging run", (Part("run_effects"),)),
        PaperItem("figure4", "Paired effects on every rubric axis and the total",
                  figure="axis_effects_forest"),
        PaperItem("paired-effects", "Paired workflow and harness effects", (Part("effects"),)),
        PaperItem("structural-audit", "Structural audit", (Part("structural"),)),
        PaperItem("scores-by-field", "Scores by field", (Part("fields"),)),
        PaperItem("judge-elo", "Judge means against human Elo", (Part("judge_elo"),)),
        PaperItem("elo-weight-sweep", "Rubric weights against human Elo",
                  (Part("elo_weights"),)),
    ),
)
