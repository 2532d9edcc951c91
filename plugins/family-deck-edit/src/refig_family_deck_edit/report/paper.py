"""PPTArena's tables as ``refig report RUN --paper pptarena --latex DIR`` writes them (see
docs/reports.md, "A paper's tables").

The paper's results tables are named for what they hold: their numbers in the paper are not
confirmed here. Tables 2 and 3 (dataset statistics) and Table 7's executor block are the paper's
and not computed by this refig yet: each is listed as one the run cannot make, and becomes a
``Part`` of the table that computes it when that table exists.
"""

from __future__ import annotations

from refig_toolkit_analysis import Paper, PaperItem, Part

NOT_YET = "refig computes no such table yet"

PPTARENA = Paper(
    name="pptarena",
    title="PPTArena",
    family="deck-edit",
    items=(
        PaperItem("table2", "Dataset statistics", missing=f"dataset statistics: {NOT_YET}"),
        PaperItem("table3", "Dataset statistics by edit type",
                  missing=f"dataset statistics: {NOT_YET}"),
        PaperItem("table7", "Executor block", missing=f"executor statistics: {NOT_YET}"),
        PaperItem("main-results", "Instruction following and visual quality, full suite",
                  (Part("deck-edit"),)),
        PaperItem("hard-subset", "Instruction following and visual quality, hard subset",
                  (Part("deck-edit-hard"),), needs="tasks the suite marks hard"),
        PaperItem("by-category", "Instruction following and visual quality by category",
                  (Part("deck-edit-category"),)),
        PaperItem("by-edit-type", "Instruction following and visual quality by edit type",
                  (Part("deck-edit-type"),)),
    ),
)
