"""``refig plan``: a study's size and cost from a pilot run (the statistics live in the analysis
toolkit: ``refig_toolkit_analysis.planning`` and ``refig_toolkit_analysis.stats.power``)."""
