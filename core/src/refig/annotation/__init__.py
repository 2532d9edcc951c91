"""Blinded pairwise human comparisons: what can be shown, the plan, the votes, the page, analysis.

``refig annotate RUN`` serves the page (:mod:`refig.annotation.server`); the report's annotator
tables live in :mod:`refig.annotation.agreement`. Importing this package imports nothing heavy.
"""
