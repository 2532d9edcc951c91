"""refig harness ``codex``: OpenAI's Codex CLI, pinned, behind refig's gateway."""
