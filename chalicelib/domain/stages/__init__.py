"""Stages: the stage resource, contacts put in and taken out of stages, the contacts-by-stage index."""
