"""The kernel: resource declarations and their registry, the standard operations, attributes, listing
and search, errors, clock, request context and the subscriber table. Imports no capability."""
