"""Public tracking (no /api prefix, no authentication): for emails, the open pixel, the web view,
unsubscribe and signed click redirects, each addressed by a send record's tracking hash; for focus
items, Mautic's public script, its view pixel and the click-through of its link."""

from html import escape

from chalicelib.api.public import PIXEL, visit, visitor_cookies
from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.messaging import tracking
from chalicelib.domain.web import focus

routes = Routes("tracking", authenticated=False)
HTML = "text/html; charset=utf-8"


@routes.route("/email/{name}", "GET", media="image/gif")
def open_pixel(request: ApiRequest, ctx: Context, name: str) -> Answer:
    """`/email/<hash>.gif`: records the open; always the 1x1 GIF."""
    if not name.endswith(".gif"):
        raise NotFound()
    tracking.open_pixel(name[:-4], visit(request, ctx), ctx)
    return Reply(PIXEL, 200, {"Cache-Control": "no-store"}, "image/gif")


@routes.route("/email/view/{hash}", "GET")
def web_view(request: ApiRequest, ctx: Context, hash: str) -> Answer:
    """The email in the browser; the browser becomes the recipient (its visitor cookies)."""
    visitor = visit(request, ctx)
    html = tracking.web_view(hash, visitor, ctx)
    return Reply(
        html,
        200,
        dict(visitor_cookies(visitor.contact_id, ctx, visitor.private), **{"Cache-Control": "no-store"}),
        HTML,
    )


@routes.route("/email/unsubscribe/{hash}", "GET", "POST")
def unsubscribe(request: ApiRequest, ctx: Context, hash: str) -> Answer:
    """Unsubscribes the recipient (GET from the link, POST from mail clients' one-click button)."""
    stat = tracking.unsubscribe(hash, ctx)
    page = (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Unsubscribed</title></head><body>'
        f"<p>{escape(stat.get('emailAddress') or 'You')} will no longer receive these emails.</p></body></html>"
    )
    return Reply(page, 200, {"Cache-Control": "no-store"}, HTML)


@routes.route("/r/{hash}", "GET")
def click(request: ApiRequest, ctx: Context, hash: str) -> Answer:
    """A tracked link: records the click, then redirects (only to URLs this service signed); the browser
    becomes the recipient (its visitor cookies)."""
    visitor = visit(request, ctx)
    url = tracking.click(hash, request.query.get("url"), request.query.get("sig"), visitor, ctx)
    headers = dict(
        visitor_cookies(visitor.contact_id, ctx, visitor.private), **{"Location": url, "Cache-Control": "no-store"}
    )
    return Reply("", 302, headers, HTML)


@routes.route("/focus/{name}", "GET")
def focus_script(request: ApiRequest, ctx: Context, name: str) -> Answer:
    """Mautic's `/focus/<id>.js`: the script of a published focus item (empty otherwise); tracks nobody."""
    if not name.endswith(".js") or not a.digits(name[:-3]):
        raise NotFound()
    return Reply(focus.public_script(name[:-3], ctx), 200, {}, "application/javascript")


@routes.route("/focus/{id}/viewpixel.gif", "GET", media="image/gif")
def focus_view(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """Mautic's focus view pixel: records the view (docs/channel-resources.md); always the 1x1 GIF."""
    visitor = visit(request, ctx)
    contact = focus.view(id, visitor, ctx) if a.digits(id) else None
    headers = dict(visitor_cookies(contact["id"] if contact else None, ctx), **{"Cache-Control": "no-store"})
    return Reply(PIXEL, 200, headers, "image/gif")


@routes.route("/focus/{id}/click", "GET")
def focus_click(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """A focus item's link: records the click-through, then redirects to the item's own `link_url`."""
    if not a.digits(id):
        raise NotFound()
    visitor = visit(request, ctx)
    url, contact = focus.click(id, visitor, ctx)
    cookies = visitor_cookies(contact["id"] if contact else None, ctx)
    return Reply("", 302, dict(cookies, **{"Location": url, "Cache-Control": "no-store"}), HTML)


blueprint = routes.blueprint()
