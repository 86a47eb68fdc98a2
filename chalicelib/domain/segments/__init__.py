"""Segments: filters, real-time membership, manual membership, rebuilds."""
