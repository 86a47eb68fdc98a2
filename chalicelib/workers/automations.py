"""Automations worker: due events, entry of source segment members, purges (domain/automations/automation_runs.py)."""

from collections.abc import Callable
from typing import Any, cast

from chalicelib.domain.automations import automation_runs


def handle(body: dict[str, Any]) -> None:
    """One message of the `automations` queue."""
    # the table's steps take different keywords, so its inferred value type is a bare `function`
    step = cast("Callable[..., object]", automation_runs.STEPS[body.pop("type")])
    step(**body)
