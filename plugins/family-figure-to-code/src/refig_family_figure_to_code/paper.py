"""FigCodeBench's tables as ``refig report RUN --paper figcodebench --latex DIR`` writes them
(see docs/reports.md, "A paper's tables"): Table 4 (per language and configuration) and Table 9
(each image metric against MMOS per language). Figure 1 (MMOS against cost) is computed as the
``code_mmos_cost`` table but not drawn.
"""

from __future__ import annotations

from refig_toolkit_analysis import Paper, PaperItem, Part

FIGCODEBENCH = Paper(
    name="figcodebench",
    title="FigCodeBench",
    family="figure-to-code",
    items=(
        PaperItem("table4", "Results per language and configuration",
                  (Part("code_by_language"),)),
        PaperItem("table9", "Image metrics against MMOS per language",
                  (Part("code_correlation_by_language"),)),
        PaperItem("figure1", "MMOS against cost per configuration",
                  missing="refig computes its numbers (the code_mmos_cost table) but draws no "
                  "such figure"),
    ),
)
