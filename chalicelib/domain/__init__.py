"""Domain rules in plain Python: no HTTP, no AWS."""
