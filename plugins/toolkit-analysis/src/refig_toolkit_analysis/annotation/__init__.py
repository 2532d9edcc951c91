"""Blinded human judgments: pairwise comparisons and expert ratings on a family's rubric.

``refig annotate RUN`` serves the comparison page, ``--rate`` the rating page
(:mod:`.server`; sessions in :mod:`.session` and :mod:`.rating_session`). Votes
and ratings move between runs through :mod:`.exchange`. The report's tables live in
:mod:`.agreement` (votes) and :mod:`.rating_report` (ratings). Importing this package imports
nothing heavy.
"""
