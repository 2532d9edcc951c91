"""The stage engine behind ``refig evaluate`` and ``refig check``: inspect, render, fold the
gate, measure and judge artifacts, over a run store or loose files, with the stages each task
family decides."""
