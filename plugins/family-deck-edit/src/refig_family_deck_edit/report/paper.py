"""PPTArena's tables as ``refig report RUN --paper pptarena --latex DIR`` writes them (see
docs/reports.md, "A paper's tables").

Tables 2 and 3 (dataset statistics) and Table 7's executor block are refig's tables of the
same quantities (docs/deck-edit.md says what each holds); the results tables are named for what
they hold: their numbers in the paper are not confirmed here.
"""

from __future__ import annotations

from refig_toolkit_analysis import Paper, PaperItem, Part

PPTARENA = Paper(
    name="pptarena",
    title="PPTArena",
    family="deck-edit",
    items=(
        PaperItem("table2", "Dataset statistics", (Part("deck-dataset"),)),
        PaperItem("table3", "Dataset statistics by category, edit type and operation",
                  (Part("deck-dataset-types"),)),
        PaperItem("table7", "Executor block", (Part("deck-executor"),),
                  needs="configurations of the hybrid (PPTPilot-style) workflow"),
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
