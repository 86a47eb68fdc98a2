"""Time charts as Mautic's dashboard widgets draw them (chart.js line charts): buckets of one time
unit across a range, a label per bucket in Mautic's style, and one dataset per series."""

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta, timezone

from chalicelib.domain.kernel.errors import invalid
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.views.time_range import DB_FORMAT, Range

MAX_BUCKETS = 1000
# unit: (bucket key format, label format)
UNITS = {
    "Y": ("%Y", "%Y"),
    "m": ("%Y-%m", "%b %Y"),
    "W": ("%G-%V", "Week %V"),
    "d": ("%Y-%m-%d", "%b %d, %y"),
    "H": ("%Y-%m-%d %H", "%b %d, %H:00"),
}
COLORS = ((78, 93, 157), (0, 180, 156), (253, 149, 114), (253, 185, 51), (117, 117, 117), (156, 78, 92))


def unit(value: str | None) -> str:
    """A `timeUnit` parameter (Y by default, as Mautic); a 400 naming it when unknown."""
    value = value or "Y"
    if value not in UNITS:
        raise invalid("timeUnit", f"Unit '{value}' is not supported. Use one of these: {', '.join(UNITS)}.")
    return value


def _step(moment: datetime, time_unit: str) -> datetime:
    if time_unit == "Y":
        return moment.replace(year=moment.year + 1, month=1, day=1)
    if time_unit == "m":
        return (moment.replace(day=1) + timedelta(days=32)).replace(day=1)
    return moment + {"W": timedelta(weeks=1), "d": timedelta(days=1), "H": timedelta(hours=1)}[time_unit]


def buckets(span: Range, time_unit: str) -> list[tuple[str, str]]:
    """[(key, label)] of every bucket from the range's start to its end."""
    key_format, label_format = UNITS[time_unit]
    start, end = span.start, span.end
    if start is None or end is None:
        raise ValueError("A chart's range has both ends.")
    found: dict[str, str] = {}
    moment = start
    while moment <= end:
        found.setdefault(moment.strftime(key_format), moment.strftime(label_format))
        if len(found) > MAX_BUCKETS:
            raise invalid("timeUnit", f"The range holds more than {MAX_BUCKETS} buckets of this unit.")
        moment = _step(moment, time_unit)
    found.setdefault(end.strftime(key_format), end.strftime(label_format))
    return list(found.items())


def key_of(stamp: str, time_unit: str) -> str:
    """The bucket key of a database date (`Y-m-d H:i:s`)."""
    return datetime.strptime(stamp, DB_FORMAT).replace(tzinfo=timezone.utc).strftime(UNITS[time_unit][0])


def _dataset(index: int, label: str, data: list[int]) -> Doc:
    r, g, b = COLORS[index % len(COLORS)]
    return {
        "label": label,
        "data": data,
        "backgroundColor": f"rgba({r},{g},{b},0.1)",
        "borderColor": f"rgba({r},{g},{b},0.8)",
        "pointHoverBackgroundColor": f"rgba({r},{g},{b},0.75)",
        "pointHoverBorderColor": f"rgba({r},{g},{b},1)",
    }


def line(all_buckets: Sequence[tuple[str, str]], series: Iterable[tuple[str, Mapping[str, int]]], height: int) -> Doc:
    """The widget's template data: `{chartType, chartHeight, chartData: {labels, datasets}}` from
    `series` [(label, {bucket key: value})]."""
    labels = [label for _, label in all_buckets]
    datasets = [
        _dataset(i, label, [values.get(key, 0) for key, _ in all_buckets]) for i, (label, values) in enumerate(series)
    ]
    return {"chartType": "line", "chartHeight": height - 80, "chartData": {"labels": labels, "datasets": datasets}}
