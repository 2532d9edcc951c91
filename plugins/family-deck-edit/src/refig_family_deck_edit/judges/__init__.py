"""The deck-edit judges: the IF and VQ LLM judge and the offline ``deck-metrics`` proxy."""
