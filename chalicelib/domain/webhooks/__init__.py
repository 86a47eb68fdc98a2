"""Webhooks: the events a change fires, the outbox and delivery."""
