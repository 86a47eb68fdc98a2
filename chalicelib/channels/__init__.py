"""Outbound adapters: HTTP delivery (webhooks), and the email and SMS senders as they land."""
