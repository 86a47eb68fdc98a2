"""The tables of the stats catalogue (`stats_catalogue.py`) answered from timeline events: the
events of one type (the all-contacts feed, or one contact's timeline for `where lead_id eq N`), through
`messaging/stats_tables.py` for the tables it had before (docs/activity-and-stats.md), `page_hits` with
the `date_left` derived as it is read (`contacts/time_on_page.py`). Also the
`Reader` every table's read is, and `bounded`, the read limit they share.
"""

from collections.abc import Callable, Hashable, Iterable, Iterator
from datetime import datetime

from chalicelib.domain.contacts import time_on_page
from chalicelib.domain.kernel import timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import stats_tables

Reader = Callable[[bool, int | None, Context, Exception], Iterator[Doc]]  # (descending, contact id, ctx, refusal)


def bounded(items: Iterable[Doc], refusal: Exception) -> Iterator[Doc]:
    """`items`, raising `refusal` past `stats_tables.MAX_EVENTS_READ` of them."""
    for count, item in enumerate(items, start=1):
        if count > stats_tables.MAX_EVENTS_READ:
            raise refusal
        yield item


EventRows = Callable[[Doc], list[Doc]]  # the rows (by column) of one timeline event


def _events(types: tuple[str, ...], build: EventRows) -> Reader:
    """A reader of the rows of the timeline events of `types`."""

    def read(descending: bool, contact_id: int | None, ctx: Context, refusal: Exception) -> Iterator[Doc]:
        source = (
            timeline.all_events(descending) if contact_id is None else timeline.contact_events(contact_id, descending)
        )
        for event in bounded(source, refusal):
            if event["event"] in types:
                yield from build(event)

    return read


def _legacy(table: str, renamed: dict[str, str] | None = None) -> Reader:
    """A reader over a table `messaging/stats_tables.py` answered before (its rows, columns renamed)."""

    def read(descending: bool, contact_id: int | None, ctx: Context, refusal: Exception) -> Iterator[Doc]:
        for row in stats_tables.table_rows(table, descending, contact_id, refusal):
            yield {renamed.get(k, k) if renamed else k: v for k, v in row.items()}

    return read


def _hit_key(row: Doc) -> tuple[Hashable | None, datetime]:
    return row["lead_id"], time_on_page.moment(row["date_hit"])


def hits_with_date_left(rows: Iterable[Doc], descending: bool) -> Iterator[Doc]:
    """`page_hits` rows (in that order) with `date_left`: the date of the contact's next hit within the
    session, else None (`time_on_page.py`), as a database string."""
    derive = time_on_page.newest_first if descending else time_on_page.oldest_first
    for row, left in derive(rows, _hit_key):
        yield dict(row, date_left=left.strftime("%Y-%m-%d %H:%M:%S") if left else None)


def _with_date_left(read: Reader) -> Reader:
    """A reader of `page_hits` rows with `date_left` (`hits_with_date_left`)."""

    def with_left(descending: bool, contact_id: int | None, ctx: Context, refusal: Exception) -> Iterator[Doc]:
        return hits_with_date_left(read(descending, contact_id, ctx, refusal), descending)

    return with_left


def _download(e: Doc) -> list[Doc]:
    d = e["details"]
    asset = d.get("asset") or {}
    return [
        {"id": e["id"], "date_download": e["timestamp"], "asset_id": asset.get("id"), "lead_id": e["contactId"]}
        | {"code": 200, "referer": d.get("referer")}
    ]


def _reply(e: Doc) -> list[Doc]:
    details = e["details"]
    return [
        {
            "id": e["id"],
            "stat_id": details.get("statId"),
            "date_replied": e["timestamp"],
            "message_id": details.get("messageId"),
        }
    ]


def _open(e: Doc) -> list[Doc]:
    return [{"id": e["id"], "stat_id": e["details"].get("statId"), "date_opened": e["timestamp"]}]


def _stage_change(e: Doc) -> list[Doc]:
    log = e["details"].get("log") or {}
    return [
        {
            "id": e["id"],
            "lead_id": e["contactId"],
            "event_name": log.get("eventName") or e.get("eventLabel"),
            "action_name": log.get("actionName"),
            "stage_id": log.get("reference"),
            "date_added": e["timestamp"],
        }
    ]


def _point_action(e: Doc) -> list[Doc]:
    action = e["details"].get("pointActionId")
    return [] if action is None else [{"point_id": action, "lead_id": e["contactId"], "date_fired": e["timestamp"]}]


def _trigger_events(e: Doc) -> list[Doc]:
    return [
        {"event_id": event_id, "lead_id": e["contactId"], "date_fired": e["timestamp"]}
        for event_id in e["details"].get("triggerEvents") or []
    ]


def _focus(e: Doc) -> list[Doc]:
    """A `focus_stats` row: `view` or `click` (Mautic's `type_id` is the click's page hit, which a focus
    click here is not: null, as Mautic's views have)."""
    focus = e["details"].get("focus") or {}
    kind = e["event"].rpartition("_")[2]
    return [
        {"id": e["id"], "focus_id": focus.get("id"), "type": kind, "date_added": e["timestamp"]}
        | {"lead_id": e["contactId"]}
    ]


def _sms(e: Doc) -> list[Doc]:
    d = e["details"]
    failed = e["event"] == "sms.failed"
    return [
        {"id": e["id"], "sms_id": d.get("smsId"), "lead_id": e["contactId"], "date_sent": e["timestamp"]}
        | {"is_failed": failed, "details": {"failed": [d.get("reason") or e.get("eventLabel")]} if failed else {}}
    ]


READERS: dict[str, Reader] = {
    "asset_downloads": _events(("asset.download",), _download),
    "campaign_lead_event_log": _legacy("campaign_lead_event_log"),
    "email_stat_replies": _events(("email.replied",), _reply),
    "email_stats": _legacy("email_stats"),
    "email_stats_devices": _events(("email.read",), _open),
    "focus_stats": _events(("focus.on_view", "focus.on_click"), _focus),
    "form_submissions": _legacy("form_submissions"),
    "lead_event_log": _legacy("lead_event_log"),
    "lead_points_change_log": _legacy("lead_points_change_log", {"name": "event_name"}),
    "lead_stages_change_log": _events(("stage.changed",), _stage_change),
    "page_hits": _with_date_left(_legacy("page_hits")),
    "point_lead_action_log": _events(("point.gained",), _point_action),
    "point_lead_event_log": _events(("point.gained",), _trigger_events),
    "sms_message_stats": _events(("sms.sent", "sms.failed"), _sms),
}  # the catalogue's tables answered from timeline events, by table
