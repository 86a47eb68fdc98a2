"""Downloads and submissions a landing page earns for its A/B test (Mautic's `asset.downloads` and
`form.submissions` criteria of a page test, `page_ab_tests.py`).

Mautic ties them to the page they came from: a `{form=N}` form on a landing page posts the page's id
(`mauticform[mauticpage]`, `SubmissionModel::saveSubmission` sets the submission's page), and an
`{assetlink=N}` on a landing page carries a click-through whose source is the page
(`AssetBundle` `BuilderSubscriber::onPageDisplay`), stored as the download's `source`/`source_id`.
Here the page's click-through is signed (`page.<id>.<signature>`), so a forged one counts nothing.

Only a page in an A/B test whose parent has a `variantStartDate` counts (Mautic reads the successes
since that date and shows nothing without one); the counters are named by that date, so moving it
starts the count again. A visitor counts once per page, event and start (a one-time marker: a
GetItem, then on its first success a conditional PutItem), and that success is one UpdateItem on one
of `counters.SHARDS` items (`pagewin#<page>#<event>#<start>#<shard>`); the page and its parent come
from the container's cache of published pages (`public_docs`), read at most once per
`PUBLIC_DOC_SECONDS`.
"""

import random
from collections.abc import Sequence

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import clock, counters, keys
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.web import page_choice, public_docs
from chalicelib.store import port as store

PURPOSE = "pagesource"
EVENTS = ("download", "submission")


def token(page_id: JSON, ctx: Context) -> str:
    """The click-through of a link on a landing page: `page.<id>.<signature>`."""
    value = f"page.{int(str(page_id))}"
    return f"{value}.{keys.sign(PURPOSE, value, ctx)}"


def page_of(ct: object, ctx: Context) -> int | None:
    """The page a signed page click-through names, or None (missing, malformed, forged, an email's)."""
    parts = str(ct or "").split(".")
    if len(parts) != 3 or parts[0] != "page" or not a.digits(parts[1]):
        return None
    return int(parts[1]) if keys.signed(PURPOSE, f"page.{parts[1]}", parts[2], ctx) else None


def published(page_id: int, ctx: Context) -> Doc | None:
    """The published page of that id, from the container's cache of page families (no read per hit)."""
    kept = public_docs.read(page_choice.FAMILY, str(page_id), lambda: {"pages": [store.get("page", page_id)]})
    found = [doc for doc in (kept or {}).get("pages") or [] if doc]
    return found[0] if found and is_published(found[0], ctx.now) else None


def _start(page: Doc, ctx: Context) -> str | None:
    """The `variantStartDate` of the test the page is in, when it has begun."""
    parent = published(int(page["variantParent"]), ctx) if page.get("variantParent") else page
    start = (parent or {}).get("variantStartDate")
    if not start or not page_choice.in_test(page) or clock.parse(str(start)) > clock.parse(ctx.now):
        return None
    return str(start)


def _names(page_id: JSON, event: str, start: str) -> list[str]:
    return [f"pagewin#{int(str(page_id))}#{event}#{start}#{shard}" for shard in range(counters.SHARDS)]


def count(event: str, page_id: JSON, visitor: str, ctx: Context) -> bool:
    """A download or submission (`event`) from a landing page: counted for the page's A/B test when
    it has one that has begun, once per visitor (the tracked contact, else the address: Mautic counts
    distinct tracking ids) and test start. Whether it counted."""
    page = published(int(str(page_id)), ctx) if a.digits(str(page_id or "")) else None
    start = _start(page, ctx) if page else None
    if page is None or start is None:
        return False
    marker = f"pagewin-{event}#{page['id']}#{start}#{visitor}"
    if store.marked(marker) or not store.claim(marker):
        return False
    store.add(_names(page["id"], event, start)[random.randrange(counters.SHARDS)], 1)
    return True


def counts(ids: Sequence[JSON], start: str) -> dict[int, dict[str, int]]:
    """{page id: {event: successes since `start`}}: one BatchGetItem per 100 counter items."""
    items = {(int(str(i)), e): _names(i, e, start) for i in ids for e in EVENTS}
    found = store.counters([name for names in items.values() for name in names]) if items else {}
    out: dict[int, dict[str, int]] = {int(str(i)): {} for i in ids}
    for (page_id, event), names in items.items():
        out[page_id][event] = sum(found.get(name, 0) for name in names)
    return out
