"""Landing pages served by alias, page hits (counted in the page's counter shards, `page.hit` on the visitor's
contact's timeline, scored by the points engine), the tracking pixel's URL hits, and the visitor.
A new visitor becomes an anonymous contact (domain/web/hits.py)."""

import base64
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from urllib.parse import parse_qsl, unquote, urlparse

from chalicelib.domain.contacts import contact_actions
from chalicelib.domain.kernel import counters, registry, timeline, variants
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.resources import Write
from chalicelib.domain.kernel.types import JSON, Doc, Items
from chalicelib.domain.messaging import dynamic_content, email_messages, rendering, theme_html
from chalicelib.domain.points import points_engine
from chalicelib.domain.web import form_pages, page_choice, page_successes, public_docs
from chalicelib.domain.web.hits import Visit, public_fields, record_for_contact, record_hit
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

RESERVED = {"api", "oauth", "form", "asset", "media", "dwc", "mtracking.gif", "favicon.ico", "mtc", "mtc.js"}
UTM_PARAMS = ("utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term")


def scored(doc: Doc, event: Doc, event_type: str, subject: JSON, ctx: Context) -> list[Doc]:
    """`event` followed by the point events that `event_type` on `subject` earns (the contact's write
    runs the triggers they cross)."""
    return [event] + points_engine.award(doc, event_type, subject, ctx)


# Mautic's page criteria: PageBundle's, and AssetBundle's and FormBundle's `onAbTestWinner` for pages
WINNER_CRITERIA = ("page.bouncerate", "page.dwelltime", "asset.downloads", "form.submissions")


class PageHooks(AliasHooks):
    """Landing pages: an alias from the title; a page written here is served fresh at once."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """The alias, and a variant's settings as Mautic's VariantType takes them."""
        super().prepare(doc, write)
        write.errors.update(variant_errors(doc.get("variantSettings")))

    variant_counts = ("variantHits",)
    translations_restart = True  # PageModel::saveEntity resets a translation of a variant (EmailModel does not)

    def zero_variant_counts(self, docs: Sequence[Doc]) -> Items:
        """`variantHits` back to 0: the stored value, and the shards' sum taken off one shard (one BatchGetItem
        per 100 shards read: 16 a page)."""
        super().zero_variant_counts(docs)
        live = counters.live_number("page", [doc["id"] for doc in docs], "variantHits")
        first = {doc_id: counters.shard_names("page", doc_id, "variantHits")[0] for doc_id in live}
        return [(first[i], 0, store.Tally(-n, first[i])) for i, n in live.items() if n]

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """Forget the pages (and variant or translation families) this container keeps for public hits."""
        super().stored(doc, existing, ctx)
        public_docs.forget("page")
        public_docs.forget(page_choice.FAMILY)


def variant_errors(settings: JSON) -> dict[str, list[str]]:
    """`variantSettings` problems by field: `weight` a whole percent (0 to 100), `winnerCriteria` one of
    the page criteria (`WINNER_CRITERIA`) when given."""
    if not isinstance(settings, dict):
        return {}
    errors: dict[str, list[str]] = {}
    weight = settings.get("weight")
    if weight not in (None, "") and not (str(weight).isdigit() and int(str(weight)) <= 100):
        errors["variantSettings[weight]"] = ["The weight is a whole percent from 0 to 100."]
    criteria = settings.get("winnerCriteria")
    if criteria not in (None, "") and criteria not in WINNER_CRITERIA:
        errors["variantSettings[winnerCriteria]"] = [f"The winner criteria is one of {', '.join(WINNER_CRITERIA)}."]
    return errors


def _stored_by_alias(alias: str) -> Doc | None:
    page_id = store.lookup("page", "alias", alias)
    return store.get("page", page_id) if page_id is not None else None


def by_alias(alias: str, ctx: Context) -> Doc:
    """The page with this alias (published or not), or NotFound: 2 GetItem, or none when this
    container read it in the last `PUBLIC_DOC_SECONDS` (`public_docs`)."""
    if alias.lower() in RESERVED:
        raise NotFound()
    page = public_docs.read("page", alias, lambda: _stored_by_alias(alias))
    if page is None:
        raise NotFound()
    return page


@dataclass(eq=False, repr=False)
class Served:
    """A landing page's answer: 200 with its HTML, or a redirect; the variant cookie to set; whether
    search engines are told not to index it (`noIndex`)."""

    status: int
    html: str = ""
    location: str | None = None
    cookie: tuple[str, str] | None = None
    no_index: bool = False


def _in_language(page: Doc, language: str | None) -> bool:
    """Whether a page may be served at a URL naming `language` (none named: any page)."""
    return language is None or variants.locale(page.get("language") or "en") == variants.locale(language)


def serve(
    alias: str, visit: Visit, url: str | None, ctx: Context, asked: page_choice.Request | None = None, base: str = ""
) -> Served:
    """A page fetched by alias: the variant or translation the visitor is shown (`page_choice`), or a
    redirect; the hit recorded on the visitor's contact (a new one for a new visitor) and counted on
    the page shown (its `variantHits` too on a first visit, when it is in an A/B test), tokens replaced."""
    asked = asked or page_choice.Request()
    page = by_alias(alias, ctx)
    if not _in_language(page, asked.language):
        raise NotFound()
    if not is_published(page, ctx.now):
        if page.get("redirectType") in (301, 302) and page.get("redirectUrl"):
            return Served(page["redirectType"], location=page["redirectUrl"])
        raise NotFound()
    choice = page_choice.choose(page, asked, None if visit.private else visit.contact_id, base, ctx)
    if choice.redirect:
        return Served(choice.redirect[0], location=choice.redirect[1], cookie=choice.cookie)
    shown = choice.page
    details = {
        "page": {"id": shown["id"], "title": shown.get("title"), "alias": shown.get("alias")},
        "url": url,
        "referer": visit.referer,
        "query": visit.query,
    }
    contact = record_hit(
        visit,
        registry.resource("page"),
        shown,
        ("hits", "uniqueHits"),
        lambda doc: (
            scored(doc, timeline.event("page.hit", shown.get("title"), details), "page.hit", shown["id"], ctx)
            + _utm(doc, visit, url, ctx)
        ),
        ctx,
        firsts=("variantHits",) if page_choice.in_test(shown) else (),
    )
    return Served(
        200, render(shown, contact, ctx, visit.query), cookie=choice.cookie, no_index=bool(shown.get("noIndex"))
    )


def render(page: Doc, contact: Doc | None, ctx: Context, query: Mapping[str, JSON] | None = None) -> str:
    """The page's HTML with the contact's tokens (`{contactfield=alias|default}`, `{dwc=slot}`...)
    filled in, as in emails (domain/messaging/rendering.py), and its `{form=N}` forms for the visitor,
    filled from the page's GET parameters (domain/web/form_pages.py)."""
    html = (
        _page_tokens(theme_html.themed(page, "page"), page)
        or f"<!DOCTYPE html><html><head><title>{escape(page.get('title') or '')}</title></head><body></body></html>"
    )
    html = form_pages.replace_tokens(html, contact, query or {}, ctx, page.get("id"))
    links = rendering.Links(
        asset=lambda asset_id: _asset_link(asset_id, page, ctx),
        dwc=lambda slot: dynamic_content.resolve(slot, contact, ctx),
    )
    rendered = rendering.render_text(html, email_messages.contact_sources(contact or {}, ctx, links=links), html=True)
    return _robots(rendered[0]) if page.get("noIndex") else rendered[0]


def _asset_link(asset_id: int, page: Doc, ctx: Context) -> str | None:
    """`{assetlink=N}` on a landing page: the asset's download URL with the page's click-through
    (`ct`), so a download counts for the page's A/B test (Mautic's AssetBundle BuilderSubscriber)."""
    url = email_messages.asset_url(asset_id, ctx)
    return f"{url}?ct={page_successes.token(page['id'], ctx)}" if url and page.get("id") else url


def _robots(html: str) -> str:
    """Mautic's robots tag for a `noIndex` page, put before `</head>` (a page without a head gets only
    the `X-Robots-Tag` header)."""
    return re.sub(r"</head>", '<meta name="robots" content="noindex">\n</head>', html, count=1, flags=re.IGNORECASE)


def _page_tokens(html: str, page: Doc) -> str:
    """Mautic's page tokens of theme templates: `{pagetitle}`, `{pagemetadescription}` (escaped)."""
    values = {"{pagetitle}": page.get("title"), "{pagemetadescription}": page.get("metaDescription")}
    return re.sub(r"{pagetitle}|{pagemetadescription}", lambda m: escape(str(values[m.group()] or "")), html)


def _utm(doc: Doc, visit: Visit, url: str | None, ctx: Context) -> list[Doc]:
    """A UTM record (and its timeline event) when the URL carries UTM parameters."""
    query = dict(parse_qsl(urlparse(url or "").query))
    if not any(query.get(name) for name in UTM_PARAMS):
        return []
    entry = {
        "id": None,
        "dateAdded": ctx.now,
        "query": query,
        "url": url,
        "referer": visit.referer,
        "remoteHost": visit.ip,
        "userAgent": visit.user_agent,
    }
    entry.update({key: query.get(name) for name, key in contact_actions.UTM_FIELDS.items() if name in UTM_PARAMS})
    return [contact_actions.record_utm(doc, entry)]


def pixel_hit(visit: Visit, ctx: Context) -> Doc | None:
    """The tracking pixel: a `page.hit` by URL for the visitor's contact (a new anonymous one for a new
    visitor), scored by `url.hit` point actions. Mautic's parameters: `page_url` (or the deprecated
    `url`, else the Referer), `page_title`/`title`, `page_referrer`/`referrer`, `page_language`/
    `language`, UTM tags, `d` (the same, base64-encoded JSON, as mtc.js sends them), and the values
    of publicly updatable contact fields, written on the visitor's own contact only
    (`hits.own_fields`)."""
    query = dict(visit.query, **_encoded(visit.query.get("d")))
    url = _first(query, "page_url", "url") or visit.referer
    if not url:
        return None
    title = _first(query, "page_title", "title")
    tags = dict(parse_qsl(urlparse(url).query), **query)  # Mautic's getHitQuery: the URL's, then the request's
    details = {
        "url": url,
        "title": title,
        "referer": _first(query, "page_referrer", "referrer") or visit.referer,
        "language": _first(query, "page_language", "language"),
        "query": {k: v for k, v in tags.items() if k in UTM_PARAMS},
    }
    return record_for_contact(
        visit,
        lambda doc: (
            [timeline.event("page.hit", title or url, details)]  # url.hit points: the points subscriber
            + _utm(doc, visit, url, ctx)
        ),
        ctx,
        fields=public_fields(query, ctx),
    )


def _first(query: Doc, *names: str) -> str | None:
    return next((str(query[name]) for name in names if query.get(name) not in (None, "")), None)


def _encoded(value: JSON) -> dict[str, str]:
    """The parameters mtc.js packs in `d` (base64 of a JSON object); {} when absent or unreadable."""
    try:
        decoded = json.loads(base64.b64decode(unquote(value or ""), validate=False) or b"{}")
    except (ValueError, TypeError):
        return {}
    return {k: v for k, v in decoded.items() if isinstance(v, str)} if isinstance(decoded, dict) else {}


def tracked_contact(contact_id: EntityId) -> Doc | None:
    """The contact document of a tracking cookie, or None."""
    return store.get("contact", contact_id)
