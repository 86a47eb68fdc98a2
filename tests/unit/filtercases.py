"""Shared pieces of the filter engine tests: the field table, a fixed now, filter and match helpers."""

from datetime import date, datetime, timedelta, timezone

from chalicelib.domain.segments.filters import compile_filters, validate

NOW = datetime(2024, 5, 15, 12, 30, tzinfo=timezone.utc)  # a Wednesday
FIELDS = {
    "lead": {
        "email": "email",
        "firstname": "text",
        "age": "number",
        "dob": "date",
        "seen": "datetime",
        "opens": "time",
        "vip": "boolean",
        "colors": "multiselect",
        "plan": "select",
        "city": "text",
        "country": "country",
    },
    "company": {"companyname": "text", "employees": "number", "founded": "date"},
}
SAMPLE_TYPES = {
    **FIELDS["lead"],
    "tags": "tags",
    "leadlist": "leadlist",
    "dnc_bounced": "boolean",
    "utm_source": "text",
    "date_added": "datetime",
}


def F(field, operator, value=None, type=None, glue="and", obj="lead"):
    """One normalised filter; ``type`` defaults to the field's."""
    default = FIELDS["company"].get(field) if obj == "company" else SAMPLE_TYPES.get(field)
    return {
        "glue": glue,
        "field": field,
        "object": obj,
        "type": type or default,
        "operator": operator,
        "properties": {"filter": value},
    }


def hit(filters, lead=None, companies=(), now=NOW):
    filters = filters if isinstance(filters, list) else [filters]
    assert validate(filters, FIELDS) == {}
    return compile_filters(filters).matches({"lead": lead or {}, "companies": list(companies)}, now)


def check(field, operator, value, stored, expected, now=NOW):
    assert hit(F(field, operator, value), {field: stored}, now=now) is expected


KEYWORD_RANGES = [  # NOW is Wednesday 2024-05-15: (keyword, first day inside, last day inside)
    ("today", "2024-05-15", "2024-05-15"),
    ("tomorrow", "2024-05-16", "2024-05-16"),
    ("yesterday", "2024-05-14", "2024-05-14"),
    ("week_this", "2024-05-13", "2024-05-19"),
    ("week_last", "2024-05-06", "2024-05-12"),
    ("week_next", "2024-05-20", "2024-05-26"),
    ("month_this", "2024-05-01", "2024-05-31"),
    ("month_last", "2024-04-01", "2024-04-30"),
    ("month_next", "2024-06-01", "2024-06-30"),
    ("year_this", "2024-01-01", "2024-12-31"),
    ("year_last", "2023-01-01", "2023-12-31"),
    ("year_next", "2025-01-01", "2025-12-31"),
]


def shift_day(day, days):
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()
