"""Public tracking (no /api prefix, no authentication): for emails, the open pixel, the web view,
unsubscribe and signed click redirects, each addressed by a send record's tracking hash; for focus
items, Mautic's public script, its view pixel and the click-through of its link."""

from html import escape

from chalicelib.api.authorizer import caller
from chalicelib.api.public import PIXEL, clickthrough_cookies, visit, visitor_cookies
from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.messaging import email_preview, tracking
from chalicelib.domain.web import focus, preference_center

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


@routes.route("/email/preview/{id}", "GET")
def preview_page(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """Mautic's preview page of an email (domain/messaging/email_preview.py); credentials, when sent,
    make the viewer that user (Mautic's signed-in session)."""
    signed_in = bool(request.headers.get("authorization") or request.query.get("access_token"))
    if signed_in:
        ctx.user = caller(request, ctx)
    html = email_preview.preview(id, request.query.get("contactId"), signed_in, ctx)
    return Reply(html, 200, {"Cache-Control": "no-store", "X-Robots-Tag": "noindex"}, HTML)


@routes.route("/email/unsubscribe/{hash}", "GET", "POST")
def unsubscribe(request: ApiRequest, ctx: Context, hash: str) -> Answer:
    """The unsubscribe link (GET: the email's preference centre, else the unsubscription with the
    email's unsubscribe form), the preference centre saved (POST of its form), or mail clients'
    one-click button (any other POST: unsubscribed)."""
    body = request.body if isinstance(request.body, dict) else {}
    if request.method == "POST" and preference_center.FORM in body:
        page = preference_center.save(hash, body[preference_center.FORM], ctx)
    elif request.method == "POST":
        stat = tracking.unsubscribe(hash, ctx)
        page = f"{escape(stat.get('emailAddress') or 'You')} will no longer receive these emails."
    else:
        page = preference_center.visit(hash, ctx)
    return Reply(page, 200, {"Cache-Control": "no-store"}, HTML)


@routes.route("/r/{hash}", "GET")
def click(request: ApiRequest, ctx: Context, hash: str) -> Answer:
    """A tracked link: records the click, then redirects (only to URLs this service signed); the browser
    becomes the recipient (its visitor cookies) and notes the send it came from (`mtc_ct`)."""
    visitor = visit(request, ctx)
    url = tracking.click(hash, request.query.get("url"), request.query.get("sig"), visitor, ctx)
    headers = dict(clickthrough_cookies(visitor, ctx), **{"Location": url, "Cache-Control": "no-store"})
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
