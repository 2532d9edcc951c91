"""One module per command group; each exposes ``register(app, registry)``.

Modules here must import only light dependencies at module level, so ``refig --help`` stays fast.
"""
