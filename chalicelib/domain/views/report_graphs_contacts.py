"""The graphs of the email, contact and point sources, as Mautic's EmailBundle and LeadBundle
ReportSubscribers draw them (`onReportGraphGenerate`) from the report's rows: email sends
(`email.stats`), contacts (`leads`) and point changes (`lead.pointlog`).

Counters Mautic reads from the email (`e.sent_count`, `e.read_count`) are the email documents' (read
once per request with the join); unsubscribes and bounces are the send's contact's do-not-contact
entry on email naming that email; clicks are the range's email clicks (page.hit events from an
email) of the sends in the rows."""

from collections import Counter
from collections.abc import Callable

from chalicelib.domain.kernel import references
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import email_stats
from chalicelib.domain.messaging.stats_tables import db_value
from chalicelib.domain.views import widget_base
from chalicelib.domain.views.report_graph_base import Graph, Rows, count_by, grouped, line, not_null, pie, table, top

EMAIL_LINK = "mautic_email_action"
PerEmail = Callable[[Rows, dict[JSON, Doc]], dict[JSON, int | float | None]]  # (rows, emails) -> {email id: value}


def _flag(rows: Rows, column: str) -> Callable[[Doc], bool]:
    return lambda row: rows.value(row, column) == "1"


def _stats_line(rows: Rows, name: str) -> Doc:
    """Sent (by `date_sent`), read (the sends' reads by `date_read`) and failed emails."""
    read = [(rows.value(r, "es.date_read"), 1) for r in rows.rows if rows.value(r, "es.date_read")]
    return line(
        rows,
        name,
        [
            ("Sent emails", count_by(rows, "es.date_sent")),
            ("Read emails", read),
            ("Failed emails", count_by(rows, "es.date_sent", _flag(rows, "es.is_failed"))),
        ],
    )


def _ignored_read_failed(rows: Rows, name: str) -> Doc:
    """StatRepository::getIgnoredReadFailed: read, failed, and the sends neither."""
    read = sum(1 for r in rows.rows if _flag(rows, "es.is_read")(r))
    failed = sum(1 for r in rows.rows if _flag(rows, "es.is_failed")(r))
    values = [("Read emails", read), ("Failed emails", failed), ("Ignored emails", len(rows.rows) - read - failed)]
    return pie(name, values, "ri-flag-fill")


def _emails(rows: Rows) -> dict[JSON, Doc]:
    """{email id: email document} of the sends' emails (read once per request, with the join), with
    `sentCount` and `readCount` as the email API shows them: stored plus the live counters (one
    BatchGetItem per 20 emails)."""
    ids = {rows.value(r, "es.email_id") for r in rows.rows} - {None}
    docs = references.referenced("email", [int(str(i)) for i in ids], rows.ctx)
    live = email_stats.counts("email", list(docs))
    return {
        i: dict(
            doc,
            sentCount=int(doc.get("sentCount") or 0) + live[int(str(i))]["sent"],
            readCount=int(doc.get("readCount") or 0) + live[int(str(i))]["read"],
        )
        for i, doc in docs.items()
    }


def _per_email(value: PerEmail, shown: str, icon: str) -> Graph:
    """A table of the emails with the largest `value` (None last, as SQL's NULL in a DESC order):
    [{id, title (the subject), <shown>}]."""

    def draw(rows: Rows, name: str) -> Doc:
        docs = _emails(rows)
        values = value(rows, docs)
        ranked = top({i: v if v is not None else float("-inf") for i, v in values.items()})
        items = [{"id": i, "title": (docs.get(int(str(i))) or {}).get("subject"), shown: values[i]} for i, _ in ranked]
        return table(name, items, icon, EMAIL_LINK)

    return Graph("table", draw)


def _email_ids(rows: Rows) -> set[int]:
    return {int(str(i)) for r in rows.rows if (i := rows.value(r, "es.email_id")) is not None}


def _counter(key: str) -> PerEmail:
    """Each email's count (`sentCount`, `readCount`), as the email API shows it."""
    return lambda rows, docs: {i: int((docs.get(i) or {}).get(key) or 0) for i in _email_ids(rows)}


def _read_ratio(rows: Rows, docs: dict[JSON, Doc]) -> dict[JSON, int | float | None]:
    """round(read / sent * 100); None (SQL's NULL) for an email never sent."""
    found: dict[JSON, int | float | None] = {}
    for i in _email_ids(rows):
        doc = docs.get(i) or {}
        sent, read = int(doc.get("sentCount") or 0), int(doc.get("readCount") or 0)
        found[i] = round(read / sent * 100) if sent else None
    return found


def _counted(test: Callable[[Rows, Doc], bool]) -> PerEmail:
    """The sends per email that pass `test`, emails without any left out (Mautic's `HAVING ... > 0`)."""

    def value(rows: Rows, docs: dict[JSON, Doc]) -> dict[JSON, int | float | None]:
        return dict(Counter(int(str(rows.value(r, "es.email_id"))) for r in rows.rows if test(rows, r)))

    return value


def _failed(rows: Rows, row: Doc) -> bool:
    return rows.value(row, "es.email_id") is not None and _flag(rows, "es.is_failed")(row)


def _dnc(reason: int) -> Callable[[Rows, Doc], bool]:
    """A send whose contact's do-not-contact entry on email, with `reason`, names the send's email
    (Mautic joins `lead_donotcontact` on the email, the channel and the contact)."""

    def test(rows: Rows, row: Doc) -> bool:
        lead, email = rows.value(row, "es.lead_id"), rows.value(row, "es.email_id")
        if lead is None or email is None:
            return False
        contact = references.referenced("contact", [int(str(lead))], rows.ctx).get(int(str(lead))) or {}
        return any(
            e.get("channel") == "email" and e.get("reason") == reason and str(e.get("channelId")) == str(email)
            for e in contact.get("doNotContact") or []
        )

    return test


def _with_contacts(rows: Rows) -> None:
    """Read the sends' contacts in one BatchGetItem per 100, so that `_dnc`'s tests read none."""
    ids = {rows.value(r, "es.lead_id") for r in rows.rows} - {None}
    references.referenced("contact", [int(str(i)) for i in ids], rows.ctx)


def _dnc_table(reason: int, shown: str) -> Graph:
    """The emails with the most sends whose contact's do-not-contact entry has `reason`."""
    counted = _counted(_dnc(reason))

    def value(rows: Rows, docs: dict[JSON, Doc]) -> dict[JSON, int | float | None]:
        _with_contacts(rows)
        return counted(rows, docs)

    return _per_email(value, shown, "ri-alert-line")


def _clicks(rows: Rows, name: str) -> Doc:
    """The links of the emails in the rows clicked most in the range: [{id, title, clicks, unique
    clicks, URL}]. A click counts when its email was sent to its contact in the rows (so only clicks
    of sends the caller may see); unique: distinct contacts."""
    docs = _emails(rows)
    sends = {(rows.value(r, "es.email_id"), rows.value(r, "es.lead_id")) for r in rows.rows}
    clicks = [
        (int(str(widget_base.EMAIL(e))), (e.get("details") or {}).get("url"), e.get("contactId"))
        for e in widget_base.events_in(rows.span, "This graph")
        if e["event"] == "page.hit" and (e.get("details") or {}).get("source") == "email" and widget_base.EMAIL(e)
    ]
    kept = [(i, link, who) for i, link, who in clicks if link is not None and (str(i), db_value(who)) in sends]
    hits = Counter((i, link) for i, link, _ in kept)
    unique = Counter((i, link) for i, link, _ in set(kept))
    items = [
        {"id": i, "title": docs[i].get("subject"), "clicks": n, "unique clicks": unique[(i, link)], "URL": link}
        for (i, link), n in top(hits)
    ]
    return table(name, items, "ri-external-link-line", EMAIL_LINK)


def _contact_dates(rows: Rows) -> list[tuple[JSON, JSON]]:
    """(date added, date identified) of each row's contact: the row's own for `leads`, else its
    contact's (1 BatchGetItem per 100 contacts)."""
    if "l.date_added" in rows.source.columns and rows.source.date_column == "l.date_added":
        return [(rows.value(r, "l.date_added"), rows.value(r, "l.date_identified")) for r in rows.rows]
    ids = {rows.value(r, "lp.lead_id") for r in rows.rows} - {None}
    contacts = references.referenced("contact", [int(str(i)) for i in ids], rows.ctx)
    found = []
    for row in rows.rows:
        lead = rows.value(row, "lp.lead_id")
        doc = contacts.get(int(str(lead))) or {} if lead is not None else {}
        found.append((db_value(doc.get("dateAdded")), db_value(doc.get("dateIdentified"))))
    return found


def _leads_line(rows: Rows, name: str) -> Doc:
    """Rows by their contact's `date_added`: all of them, and those whose contact is identified."""
    dates = _contact_dates(rows)
    identified = [(added, 1) for added, when in dates if when]
    return line(rows, name, [("All contacts", [(added, 1) for added, _ in dates]), ("Identified", identified)])


def _points_line(rows: Rows, name: str) -> Doc:
    return line(rows, name, [("Points", count_by(rows, "lp.date_added"))])


def _most_points(rows: Rows, name: str) -> Doc:
    """[{id, title (the email), points}]: the contacts whose changes add up to the most points."""
    points: Counter[JSON] = Counter()
    emails: dict[JSON, JSON] = {}
    for row in rows.rows:
        contact = rows.value(row, "l.id")
        points[contact] += int(str(rows.value(row, "lp.delta") or 0))
        emails[contact] = rows.value(row, "l.email")
    items = [{"id": i, "title": emails[i], "points": n} for i, n in top(points)]
    return table(name, items, "ri-asterisk", "mautic_contact_action")


def _tops(column: str, shown: str, icon: str) -> Graph:
    """[{title, <shown>}]: the most frequent values of `column` (COUNT(column) per value)."""

    def draw(rows: Rows, name: str) -> Doc:
        counts = grouped(rows, column, not_null(rows, column))
        return table(name, [{"title": value, shown: n} for value, n in top(counts)], icon)

    return Graph("table", draw, (column.split(".")[0],))


EMAIL_STATS_GRAPHS = {
    "mautic.email.graph.line.stats": Graph("line", _stats_line),
    "mautic.email.graph.pie.ignored.read.failed": Graph("pie", _ignored_read_failed),
    "mautic.email.table.most.emails.sent": _per_email(_counter("sentCount"), "sent", "ri-send-plane-line"),
    "mautic.email.table.most.emails.read": _per_email(_counter("readCount"), "opens", "ri-eye-line"),
    "mautic.email.table.most.emails.read.percent": _per_email(_read_ratio, "ratio", "ri-speed-up-line"),
    "mautic.email.table.most.emails.unsubscribed": _dnc_table(1, "unsubscribed"),
    "mautic.email.table.most.emails.bounced": _dnc_table(2, "bounced"),
    "mautic.email.table.most.emails.failed": _per_email(_counted(_failed), "failed", "ri-alert-line"),
    "mautic.email.table.most.emails.clicks": Graph("table", _clicks),
}
LEAD_GRAPHS = {"mautic.lead.graph.line.leads": Graph("line", _leads_line)}
POINT_GRAPHS = {
    "mautic.lead.graph.line.leads": Graph("line", _leads_line),
    "mautic.lead.graph.line.points": Graph("line", _points_line),
    "mautic.lead.table.most.points": Graph("table", _most_points, ("l",)),
    "mautic.lead.table.top.countries": _tops("l.country", "quantity", "ri-earth-line"),
    "mautic.lead.table.top.cities": _tops("l.city", "quantity", "ri-community-line"),
    "mautic.lead.table.top.events": _tops("lp.event_name", "events", "ri-calendar-line"),
    "mautic.lead.table.top.actions": _tops("lp.action_name", "actions", "ri-flashlight-line"),
}
