"""Automations: event graphs, journeys, scheduled runs and the steps they execute."""
