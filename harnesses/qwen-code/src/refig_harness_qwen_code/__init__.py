"""refig harness ``qwen-code``: Alibaba's Qwen Code CLI, pinned, behind refig's gateway."""
