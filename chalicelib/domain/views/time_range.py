"""Date ranges of the views: parsing `dateFrom`/`dateTo`, and reading rows in time order only as far
as a range reaches, with a ceiling on the rows one request may read."""

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timedelta, timezone, tzinfo

from dateutil import parser as date_parser

from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.errors import DomainError, invalid
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.records import record

MAX_ROWS_READ = 50_000  # rows one view request may read before it is refused (docs/storage.md)
DB_FORMAT = "%Y-%m-%d %H:%M:%S"


class TooMuch(DomainError):
    """A view would read more rows than MAX_ROWS_READ: ask a shorter range."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} would read more than {MAX_ROWS_READ} rows; ask a shorter range (dateFrom, dateTo).",
            {"dateFrom": [f"More than {MAX_ROWS_READ} rows in the range."]},
        )


@record
class Range:
    """An inclusive UTC range; either end may be open (None). `zone`: where the range was asked from
    (a widget's `timezone`), the zone its charts cut their buckets in."""

    start: datetime | None = None
    end: datetime | None = None
    zone: tzinfo = timezone.utc

    def db(self) -> tuple[str | None, ...]:
        """(start, end) as database strings (`Y-m-d H:i:s`), None for an open end."""
        return tuple(m.strftime(DB_FORMAT) if m else None for m in (self.start, self.end))

    def echo(self) -> tuple[str | None, ...]:
        """(dateFrom, dateTo) as ISO 8601 strings for the answer, None for an open end."""
        return tuple(clock.iso(m) if m else None for m in (self.start, self.end))


def moment(value: JSON, name: str, zone: tzinfo | None = None) -> datetime | None:
    """A date/time parameter as an aware UTC datetime, None when absent; a value without an offset
    is a time in `zone` (UTC by default). A 400 naming it otherwise."""
    if value in (None, ""):
        return None
    try:
        if zone is not None and date_parser.parse(str(value).strip()).tzinfo is None:
            return date_parser.parse(str(value).strip()).replace(tzinfo=zone).astimezone(timezone.utc)
        return clock.parse(str(value)).astimezone(timezone.utc)
    except (ValueError, OverflowError):
        raise invalid(name, "This value is not a valid date (Y-m-d H:i:s or ISO 8601).") from None


def parse(query: Mapping[str, JSON], default_days: int | None = None, zone: tzinfo | None = None) -> Range:
    """The Range of `dateFrom`/`dateTo` (read in `zone` when they carry no offset); with
    `default_days`, a missing end is now and a missing start that many days before the end."""
    start, end = moment(query.get("dateFrom"), "dateFrom", zone), moment(query.get("dateTo"), "dateTo", zone)
    if default_days is not None:
        end = end or clock.now()
        start = start or end - timedelta(days=default_days)
    if start and end and start > end:
        raise invalid("dateTo", "dateTo is before dateFrom.")
    return Range(start, end, zone or timezone.utc)


def within(
    rows: Iterable[Doc], date_column: str, span: Range, descending: bool, what: str = "This view"
) -> Iterator[Doc]:
    """The rows (in `date_column` order, newest first when `descending`) inside `span`: rows before
    the near end are skipped, rows past the far end too, and the read stops at the first row more
    than clock.order_slack() past it (rows come in id order, which follows time only to within the id
    blocks' age across processes: docs/storage.md, "Ids"); at most MAX_ROWS_READ are read."""
    start, end = span.db()
    edge = span.start - clock.order_slack() if descending and span.start else None
    edge = span.end + clock.order_slack() if not descending and span.end else edge
    stop = edge.strftime(DB_FORMAT) if edge else None
    for count, row in enumerate(rows, start=1):
        if count > MAX_ROWS_READ:
            raise TooMuch(what)
        stamp = row.get(date_column) or ""
        if stop and (stamp < stop if descending else stamp > stop):
            return
        if (not start or stamp >= start) and (not end or stamp <= end):
            yield row
