"""evalgap inside the tools where evaluations run (the inspect_ai extension)."""
