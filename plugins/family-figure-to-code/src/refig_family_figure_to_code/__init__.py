"""The `figure-to-code` task family (FigCodeBench): a figure in, one plotting program out.

Programs run for real in a sandbox (:mod:`.execution`), one toolchain per language
(:mod:`.languages`); suites are imported from FigCodeBench's released layout or generated.
"""
