"""The five-axis rubric scored by an LLM through litellm."""
