"""Landing pages by alias (`/<alias>`), and a translation at Mautic's URL naming its language
(`/<language>/<alias>`): the variant and translation a visitor is shown (domain/web/page_choice.py),
the variant cookie, and the robots header of a `noIndex` page. See docs/public-endpoints.md."""

import re
from urllib.parse import urlencode

from chalicelib.api.public import visit, visitor_cookies
from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.web import page_choice, pages

routes = Routes("landing_pages", authenticated=False)
LANGUAGE = r"[a-z]{2,3}([_-][A-Za-z]{2})?"
HTML = "text/html; charset=utf-8"


def _cookies(request: ApiRequest) -> dict[str, str]:
    """The variant cookies of the request ({parent page id: variant id})."""
    prefix = page_choice.COOKIE_PREFIX
    return {name[len(prefix) :]: value for name, value in request.cookies().items() if name.startswith(prefix)}


def _set(cookies: list[str]) -> dict[str, object]:
    """The Set-Cookie header of `cookies`, none when there are none."""
    return {"Set-Cookie": cookies} if cookies else {}


def _page(request: ApiRequest, ctx: Context, alias: str, language: str | None) -> Answer:
    """The page's answer: its HTML (visitor and variant cookies, `X-Robots-Tag` when `noIndex`), or the
    redirect to the variant's test, the visitor's translation, or an unpublished page's target."""
    visitor = visit(request, ctx)
    query = urlencode([(k, v) for k, v in visitor.query.items()])
    url = request.url() + (f"?{query}" if query else "")
    asked = page_choice.Request(
        kept=_cookies(request),
        accept_language=request.headers.get("accept-language"),
        language=language,
        no_redirect=str(request.query.get("ntrd") or "") in ("1", "true"),
    )
    served = pages.serve(alias, visitor, url, ctx, asked, request.base_url())
    kept = [
        f"{n}={v}; Path=/; Max-Age={page_choice.COOKIE_SECONDS}; SameSite=Lax" for n, v in filter(None, [served.cookie])
    ]
    if served.location:
        return Reply("", served.status, dict({"Location": served.location}, **_set(kept)), HTML)
    headers = _set(kept + visitor_cookies(visitor.contact_id, ctx, visitor.private).get("Set-Cookie", []))
    if served.no_index:
        headers["X-Robots-Tag"] = "noindex"
    return Reply(served.html, 200, headers, HTML)


@routes.route("/{alias}", "GET")
def landing_page(request: ApiRequest, ctx: Context, alias: str) -> Answer:
    """A landing page by alias for the visitor's contact (cookie set); an unpublished one redirects
    (redirectType/redirectUrl) or is a 404."""
    return _page(request, ctx, alias, None)


@routes.route("/{language}/{alias}", "GET")
def translated_page(request: ApiRequest, ctx: Context, language: str, alias: str) -> Answer:
    """A translation at the URL naming its language: served as it is, without choosing another."""
    if not re.fullmatch(LANGUAGE, language) or language.lower() in pages.RESERVED:
        raise NotFound()
    return _page(request, ctx, alias, language)


blueprint = routes.blueprint()
