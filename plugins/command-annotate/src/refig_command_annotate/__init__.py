"""``refig annotate``: blinded human judgments of a run (the pages live in the analysis toolkit)."""
