"""The rubric judge on an open-weight Qwen model served by vLLM, SGLang or Ollama."""
