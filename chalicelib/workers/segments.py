"""Segment worker (placeholder while wiring)."""


def handle(body):
    pass


def resend_stuck():
    pass


def refresh_relative():
    pass
