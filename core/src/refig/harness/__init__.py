"""What harness adapters share: the CLI adapter base, pinned CLI installs, and offline self-checks.

- :mod:`refig.harness.adapter`: the body of every adapter that drives a real harness CLI.
- :mod:`refig.harness.install`: pinned CLIs installed with npm into refig's prefix, and found.
- :mod:`refig.harness.selfcheck`: one attempt against the scripted model server, offline.
"""
