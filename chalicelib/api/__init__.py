"""HTTP layer: one Blueprint per resource family, request parsing, envelopes, errors."""
