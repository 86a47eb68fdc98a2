"""What the dashboard widgets that are no time chart share (`widget_lists.py` holds their
catalogue): the timeline events of a range (the all-contacts feed, newest first, only back to the
range's start), only those naming a document the caller may view (`guarded`), the documents of a
kind the caller may view, and Mautic's pie (`chartType: pie`, one dataset of values with their
colours, labels `Label; Nx, P%`) and table (`headItems`: Mautic's label keys, `bodyItems`: rows of
cells, `raw`: the rows as Mautic's queries name their columns) shapes."""

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence

from chalicelib.domain.kernel import access, references, registry, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging.stats_tables import db_value
from chalicelib.domain.views import charts, time_range
from chalicelib.domain.views.time_range import Range
from chalicelib.domain.views.widget_filters import Params

Build = Callable[[Range, int, int, Context, Params], Doc]  # (range, limit, height, ctx, filters) -> template data


def events_in(span: Range, what: str = "This widget") -> Iterator[Doc]:
    """The timeline events inside the range, newest first, the read stopping at its start."""
    rows = ({"at": db_value(e["timestamp"]), "event": e} for e in timeline.all_events(True))
    return (row["event"] for row in time_range.within(rows, "at", span, True, what))


def _of(events: Iterable[Doc], *types: str) -> list[Doc]:
    return [e for e in events if e["event"] in types]


def visible_ids(ctx: Context, kind: str, ids: Iterable[JSON]) -> set[JSON]:
    """The ids (None: no document) of `kind` whose documents the caller may view: all of them for a
    caller who sees every document (nothing read), else read in one BatchGetItem per 100; Forbidden
    without any view of the kind."""
    resource = registry.resource(kind)
    wanted = set(ids)
    if access.visible_owner(ctx, resource) is None:
        return wanted
    docs = references.referenced_many({kind: [i for i in wanted if i is not None]}, ctx)[kind]
    return {i for i in wanted if i is not None and access.viewable(ctx, resource, docs.get(i))}


def guarded(events: Sequence[Doc], ctx: Context, kind: str, key: Callable[[Doc], JSON]) -> list[Doc]:
    """The events whose document of `kind` (its id `key(event)`) the caller may view."""
    seen = visible_ids(ctx, kind, (key(e) for e in events))
    return [e for e in events if key(e) in seen]


def _detail(*path: str) -> Callable[[Doc], JSON]:
    def get(event: Doc) -> JSON:
        value: JSON = event.get("details") or {}
        for name in path:
            value = value.get(name) if isinstance(value, dict) else None
        return value

    return get


ASSET, EMAIL, FORM, PAGE = _detail("asset", "id"), _detail("emailId"), _detail("form", "id"), _detail("page", "id")


def contact_of(event: Doc) -> JSON:
    """The contact an event belongs to."""
    return event.get("contactId")


# --- pies -----------------------------------------------------------------------------------------


def pie(values: Sequence[tuple[str, int]], height: int) -> Doc:
    """Mautic's PieChart: labels with their count and share, one dataset of values and colours."""
    total = sum(value for _, value in values)
    labels = [f"{label}; {value}x, {round(value / total * 100, 2):g}%" if total else label for label, value in values]
    colours = [charts.COLORS[i % len(charts.COLORS)] for i in range(len(values))]
    dataset = {
        "data": [value for _, value in values],
        "backgroundColor": [f"rgba({r},{g},{b},0.8)" for r, g, b in colours],
        "hoverBackgroundColor": [f"rgba({r},{g},{b},0.9)" for r, g, b in colours],
    }
    return {"chartType": "pie", "chartHeight": height - 80, "chartData": {"labels": labels, "datasets": [dataset]}}


def _created_contacts(span: Range, ctx: Context) -> Iterator[Doc]:
    """The contacts created in the range that the caller may view, newest first."""
    docs = ({"at": db_value(d.get("dateAdded")), "doc": d} for d in _visible_docs(ctx, "contact"))
    return (row["doc"] for row in time_range.within(docs, "at", span, True, "This widget"))


def _visible_docs(ctx: Context, kind: str) -> Iterator[Doc]:
    return access.visible_documents(ctx, registry.resource(kind), descending=True)


def table(head: Sequence[str], raw: Sequence[Doc], cells: Callable[[Doc], list[Doc]]) -> Doc:
    """Mautic's table widget: label keys, rows of cells, and the raw rows."""
    return {"headItems": list(head), "bodyItems": [cells(row) for row in raw], "raw": list(raw)}


def _link(value: JSON, path: str) -> Doc:
    return {"value": value, "type": "link", "link": path}


def _top(counts: Counter[JSON], limit: int) -> list[tuple[JSON, int]]:
    """The most counted keys, ties by key, at most `limit`."""
    return sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))[:limit]


def _docs(ctx: Context, kind: str, ids: Iterable[JSON]) -> dict[JSON, Doc]:
    return references.referenced_many({kind: [i for i in ids if i is not None]}, ctx)[kind]


def _contact_name(doc: Doc) -> str:
    values = doc.get("values") or {}
    name = f"{values.get('firstname') or ''} {values.get('lastname') or ''}".strip()
    return name or values.get("email") or "anonymous"
