"""The `url.hit` point action's rules (Mautic's PageBundle PointActionHelper::validateUrlHit), applied
to a page hit that is no landing page's (the tracking pixel, a tracked email link): the URL must match
`page_url`, then every option the action sets must hold, counted on the contact's hits of URLs that
match it, this hit included (Mautic stores the hit before its points subscriber runs):

- `page_hits` N: at least N such hits;
- `accumulative_time` T: their time on page (a hit is left at the contact's next hit within the
  session, contacts/time_on_page.py) adds up to at least T;
- `returns_within` T / `returns_after` T: the contact's previous such hit came at most / at least T ago;
- `first_time` (true): this is the first such hit.

Times are in the unit named by `<option>_unit` (`i` minutes, `H` hours, the default, `d` days, `m`
30-day months, any other seconds), the unit Mautic's form (SecondsConversionTransformer) reads them in.
Pure: the hits come from the caller (the contact's `page.hit` timeline events).
"""

import fnmatch
from collections.abc import Mapping, Sequence
from datetime import datetime

from chalicelib.domain.contacts import time_on_page
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.types import JSON
from chalicelib.records import record

UNIT_SECONDS = {"i": 60, "H": 3600, "d": 86400, "m": 2_592_000}
COUNTED = ("first_time", "page_hits", "accumulative_time", "returns_within", "returns_after")


@record
class Hit:
    """A page hit of the contact: its URL and time."""

    url: str
    at: datetime


def url_matches(pattern: JSON, url: JSON) -> bool:
    """Whether `url` is one `page_url` names: a shell pattern (`*` wildcards), else any URL containing it."""
    wanted = str(pattern or "").strip()
    return bool(wanted) and fnmatch.fnmatchcase(str(url or ""), wanted if "*" in wanted else f"*{wanted}*")


def problems(props: Mapping[str, JSON]) -> dict[str, list[str]]:
    """{`properties[<option>]`: [message]} of options that are not whole numbers of 0 or more, as
    Mautic's form (an integer field, seconds converted from whole units) refuses them."""
    errors = {}
    for name in COUNTED[1:]:
        value = props.get(name)
        if value in (None, ""):
            continue
        try:
            number = a.as_int(value)
        except a.Invalid:
            number = -1
        if number < 0:
            errors[f"properties[{name}]"] = ["This value should be a whole number of 0 or more."]
    return errors


def counted(props: Mapping[str, JSON]) -> bool:
    """Whether the action sets an option that needs the contact's earlier hits."""
    return any(props.get(name) for name in COUNTED)


def seconds(props: Mapping[str, JSON], name: str) -> int:
    """An option's time in seconds (0 when unset or not a number)."""
    try:
        value = int(float(str(props.get(name) or 0)))
    except (ValueError, OverflowError):
        return 0
    return value * UNIT_SECONDS.get(str(props.get(f"{name}_unit") or "H"), 1)


def holds(props: Mapping[str, JSON], url: str, earlier: Sequence[Hit], now: datetime) -> bool:
    """Whether a hit of `url` at `now`, after the contact's `earlier` hits (any URLs, oldest first),
    meets every option of the action's `props` (the URL match is the caller's)."""
    hits = [*earlier, Hit(url, now)]
    matching = [i for i, hit in enumerate(hits) if url_matches(props.get("page_url"), hit.url)]
    checks = []
    if props.get("first_time") is True:
        checks.append(len(matching) == 1)
    if props.get("page_hits"):
        checks.append(len(matching) >= _number(props.get("page_hits")))
    if props.get("accumulative_time"):
        checks.append(_time_on_pages(hits, matching) >= seconds(props, "accumulative_time"))
    previous = hits[matching[-2]].at if len(matching) > 1 else None
    since = (now - previous).total_seconds() if previous else None
    if props.get("returns_within"):
        checks.append(since is not None and since <= seconds(props, "returns_within"))
    if props.get("returns_after"):
        checks.append(since is not None and since >= seconds(props, "returns_after"))
    return all(checks)


def _number(value: JSON) -> int:
    try:
        return int(float(str(value)))
    except (ValueError, OverflowError):
        return 0


def _time_on_pages(hits: Sequence[Hit], matching: Sequence[int]) -> int:
    """Seconds spent on the hits at `matching` (a hit with no next hit in its session counts 0)."""
    left = time_on_page.dates_left([(0, hit.at) for hit in hits])
    return sum(time_on_page.seconds(hits[i].at, left[i]) or 0 for i in matching)
