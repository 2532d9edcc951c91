"""The `code-sample` suite: seeded plotting tasks in four languages across seven categories."""
