"""refig harness ``claude-code``: Anthropic's Claude Code CLI, pinned, behind refig's gateway."""
