"""Mautic's tracking script (`/mtc.js`, MauticJS) and what its page views do here: the script is
`data/mtc.js` with the service's base URL in it; a page view it sends (`/mtc/event`) is a `page.hit`
by URL on the visitor's contact, as the tracking pixel's (`pages.pixel_hit`)."""

from functools import lru_cache
from pathlib import Path

from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.web import pages, visitors
from chalicelib.domain.web.hits import Visit

SOURCE = Path(__file__).parent / "data" / "mtc.js"
DEVICE_PARAM = "mautic_device_id"  # what mtc.js sends back of the `device_id` it was given


@lru_cache(maxsize=1)
def _template() -> str:
    return SOURCE.read_text(encoding="utf-8")


def script(base: str) -> str:
    """The script for a service at `base` (its public URL, no trailing slash)."""
    return _template().replace("__BASE__", base.replace("\\", "\\\\").replace("'", "\\'"))


def opted_out(query: Doc) -> bool:
    """Whether mtc.js says the browser asked not to be tracked (`do_not_track`: navigator.doNotTrack)."""
    return str(query.get("do_not_track") or "").lower() in ("1", "true")


def identify(visit: Visit, device: str | None, ctx: Context) -> None:
    """A visitor without a visitor cookie (a third-party request the browser sent without it) is the
    contact of the `mautic_device_id` that mtc.js kept from an earlier answer, when it is our token."""
    if visit.contact_id is None and device:
        visit.contact_id = visitors.contact_of(device, ctx)


def page_view(visit: Visit, ctx: Context) -> int | None:
    """Record a page view of mtc.js (URL, title, referrer, language, UTM tags, device) on the visitor's
    contact, a new anonymous one for a new visitor; the contact's id (None for a bot or a browser
    that asked not to be tracked)."""
    contact = pages.pixel_hit(visit, ctx)
    return contact["id"] if contact else (None if visit.private else visit.contact_id)
