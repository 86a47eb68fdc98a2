"""The choices of Mautic's typed fields (country, region, locale, timezone), read on first use
from `data/` (documented in docs/contacts.md): countries and regions are Mautic's own lists
(CoreBundle/Assets/json), locales the CLDR locale ids (Symfony's Locales, from which Mautic takes
them), timezones the IANA zones of zone.tab plus UTC (PHP's DateTimeZone::listIdentifiers)."""

import json
from functools import cache
from pathlib import Path

DATA = Path(__file__).parent / "data"


@cache
def _choices() -> dict[str, list[str]]:
    return json.loads((DATA / "choices.json").read_text(encoding="utf-8"))


def countries() -> list[str]:
    """Mautic's countries in its order (a form's `country` field offers them)."""
    return list(_choices()["countries"])


@cache
def choices(kind: str) -> frozenset[str]:
    """The allowed values of a field type: `country`, `region`, `locale` or `timezone`."""
    if kind == "region":
        regions = json.loads((DATA / "regions.json").read_text(encoding="utf-8"))
        return frozenset(name for names in regions.values() for name in names)
    return frozenset(_choices()[{"country": "countries", "locale": "locales", "timezone": "timezones"}[kind]])
