"""An automation that adds its contacts to itself again (`campaign.addremovelead` with `this` among
`addTo`) must wait at least 30 minutes first, or contacts loop as fast as the runner goes: an
immediate one, or one delayed by fewer than 30 minutes, is refused with 422 (Mautic's
`InfiniteLoopValidator`, and `InfiniteLoopValidatorFunctionalTest::testValidationViaCampaignApi`).
Delays counted in hours or days pass, as in Mautic."""

from collections.abc import Callable, Iterable

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.types import Doc

ACTION = "campaign.addremovelead"
MINUTES = 30


def _restarts_itself(event: Doc, own_id: int | None) -> bool:
    """Whether the event adds the contact to the automation it runs in."""
    if event.get("type") != ACTION:
        return False
    properties = event.get("properties") or {}
    targets = a.ids_in(properties.get("addTo"), keep=("this",)) if isinstance(properties, dict) else []
    return "this" in targets or (own_id is not None and own_id in targets)


def _message(event: Doc) -> str | None:
    """Mautic's message when the event's delay is too short to restart, else None."""
    mode, unit = event.get("triggerMode") or "immediate", event.get("triggerIntervalUnit")
    interval = int(event.get("triggerInterval") or 0)
    if mode == "immediate":
        return "Campaign cannot restart itself without a delay. Please add at least 30 minute delay."
    if mode == "interval" and unit == "i" and interval < MINUTES:
        return f"Your delay is only {interval} minutes. It must be at least 30 minutes."
    return None


def problems(events: Iterable[Doc], own_id: int | None, name: Callable[[Doc], str]) -> dict[str, list[str]]:
    """{`events[i][triggerMode]`: [message]} for each event that restarts its automation too soon."""
    found: dict[str, list[str]] = {}
    for event in events:
        message = _message(event) if _restarts_itself(event, own_id) else None
        if message:
            found[f"{name(event)}[triggerMode]"] = [message]
    return found
