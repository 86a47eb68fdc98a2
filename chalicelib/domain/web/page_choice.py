"""Which page a visitor of a landing page's URL is shown, as Mautic's `PublicController::indexAction`:
a variant's own URL moves (301) to its test's parent; the parent of an A/B test serves one of its
published variants by weight (`kernel/variants.by_deficit` on their `variantHits`) and the visitor
keeps it (Mautic's cookie `mautic_page_<parent id>`, 14 days, or else, for a known contact, a pick
fixed by the contact's id); then a page with translations redirects (302) to the translation of the
contact's `preferred_locale` or the browser's `Accept-Language` (`kernel/variants.translation`),
unless the URL names its language (`/<language>/<alias>`) or carries `ntrd=1`."""

import hashlib
from dataclasses import dataclass, field

from chalicelib.domain.kernel import counters, registry, variants
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.web import public_docs
from chalicelib.store import port as store

COOKIE_PREFIX = "mautic_page_"  # Mautic's cookie naming the variant a visitor was shown
COOKIE_SECONDS = 14 * 86400
FAMILY = "pagefamily"  # what `public_docs` keeps of a test's variants or a page's translations


@dataclass(eq=False, repr=False)
class Request:
    """What the visitor's request says about its choice: the variant cookies it sends
    ({parent id: variant id}), its `Accept-Language`, the language of the URL and `ntrd`."""

    kept: dict[str, str] = field(default_factory=dict)
    accept_language: str | None = None
    language: str | None = None
    no_redirect: bool = False


@dataclass(eq=False, repr=False)
class Choice:
    """The page to serve, or the URL to send the visitor to, and the variant cookie to set."""

    page: Doc
    redirect: tuple[int, str] | None = None
    cookie: tuple[str, str] | None = None


def url_of(page: Doc, base: str) -> str:
    """The public URL of a page: a translation's carries its language (Mautic's `generateSlug`)."""
    if page.get("translationParent"):
        return f"{base}/{page.get('language') or 'en'}/{page.get('alias')}"
    return f"{base}/{page.get('alias')}"


def _pages(ids: list[JSON], ctx: Context) -> list[Doc]:
    """The published pages of `ids`, in that order, kept per container as a page by alias is."""
    if not ids:
        return []
    key = ",".join(str(i) for i in ids)
    kept = public_docs.read(FAMILY, key, lambda: {"pages": list(store.batch_get("page", ids).values())})
    found = {doc["id"]: doc for doc in (kept or {}).get("pages") or []}
    return [found[i] for i in ids if i in found and is_published(found[i], ctx.now)]


def _parent(page: Doc, name: str, ctx: Context) -> Doc | None:
    """The published document a page's reference `name` names, or None."""
    parent_id = page.get(name)
    found = _pages([parent_id], ctx) if parent_id else []
    return found[0] if found else None


def in_test(page: Doc) -> bool:
    """Whether a hit on the page counts for an A/B test (`variantHits`): it is a variant or has some."""
    return bool(page.get("variantParent") or page.get("variantChildren") or page.get("variantStartDate"))


def weight_of(page: Doc) -> JSON:
    """A variant's `variantSettings.weight` as stored (settings that are not an object weigh nothing)."""
    settings = page.get("variantSettings")
    return settings.get("weight") if isinstance(settings, dict) else None


def _candidates(parent: Doc, children: list[Doc]) -> list[variants.Candidate]:
    """The test's variants with their weights and `variantHits` (the live counters; a variant's
    translations count with it, as in Mautic)."""
    docs = {doc["id"]: doc for doc in [*children, parent]}
    shares = variants.weights(parent["id"], [(c["id"], weight_of(c)) for c in children])
    family = {doc_id: [doc_id, *(docs[doc_id].get("translationChildren") or [])] for doc_id in docs}
    live = counters.live(registry.resource("page"), [i for ids in family.values() for i in ids])
    return [
        variants.Candidate(
            doc_id,
            weight,
            int(docs[doc_id].get("variantHits") or 0) + sum(live[int(i)]["variantHits"] for i in family[doc_id]),
        )
        for doc_id, weight in shares
    ]


def _by_contact(candidates: list[variants.Candidate], parent_id: JSON, contact_id: int) -> JSON:
    """A variant fixed by the contact's id: the same for every browser of the contact, spread by weight."""
    digest = hashlib.sha256(f"{parent_id}:{contact_id}".encode()).digest()
    point = int.from_bytes(digest[:8], "big") / 2**64 * sum(c.weight for c in candidates)
    for candidate in candidates:
        point -= candidate.weight
        if point < 0:
            return candidate.id
    return candidates[-1].id


def _variant(page: Doc, request: Request, contact_id: int | None, ctx: Context) -> Choice:
    """The variant of an A/B test's parent the visitor is shown (the parent itself when it has none)."""
    children = _pages(list(page.get("variantChildren") or []), ctx)
    if not children:
        return Choice(page)
    by_id = {str(doc["id"]): doc for doc in [page, *children]}
    kept = request.kept.get(str(page["id"]))
    if kept in by_id:
        return Choice(by_id[kept])
    candidates = _candidates(page, children)
    if contact_id is not None:
        chosen = _by_contact(candidates, page["id"], contact_id)
    else:
        chosen = variants.by_deficit(candidates)
    return Choice(by_id[str(chosen)], cookie=(f"{COOKIE_PREFIX}{page['id']}", str(chosen)))


def _translation(page: Doc, request: Request, contact: Doc | None, ctx: Context) -> Doc:
    """The translation of `page`'s family for the contact's and the browser's languages (`page` itself
    when none fits better)."""
    parent = _parent(page, "translationParent", ctx) if page.get("translationParent") else page
    if parent is None or not parent.get("translationChildren"):
        return page
    family = [parent, *_pages(list(parent.get("translationChildren") or []), ctx)]
    preferred = ((contact or {}).get("values") or {}).get("preferred_locale")
    languages = {doc["id"]: doc.get("language") or "en" for doc in family}
    chosen = variants.translation(languages, variants.wanted(preferred, request.accept_language))
    return next((doc for doc in family if doc["id"] == chosen), page)


def choose(page: Doc, request: Request, contact_id: int | None, base: str, ctx: Context) -> Choice:
    """What the visitor of `page`'s URL gets (see the module's docstring)."""
    parent = _parent(page, "variantParent", ctx)
    if parent is not None:
        return Choice(page, redirect=(301, url_of(parent, base)))
    choice = _variant(page, request, contact_id, ctx)
    if request.language or request.no_redirect:
        return choice
    if not (choice.page.get("translationParent") or choice.page.get("translationChildren")):
        return choice
    contact = store.get("contact", contact_id) if contact_id is not None else None
    translated = _translation(choice.page, request, contact, ctx)
    if translated["id"] != choice.page["id"]:
        choice.redirect = (302, url_of(translated, base))
    return choice
