"""Contacts and companies: custom fields and values, notes, devices, actions on one contact, merges."""
