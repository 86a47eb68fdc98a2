"""The public, unauthenticated endpoints (no /api prefix): form submission, the tracking pixel,
asset downloads and dynamic content (landing pages: api/landing_pages.py; what websites embed:
api/site_tracking.py). See docs/public-endpoints.md."""

from html import escape
from typing import Any
from urllib.parse import quote, urlsplit

from chalicelib import config
from chalicelib.api import cross_site, downloads
from chalicelib.api.errors import ApiError
from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.auth import core
from chalicelib.domain.automations import dwc_requests
from chalicelib.domain.contacts import ip_privacy
from chalicelib.domain.kernel import files
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, ValidationError
from chalicelib.domain.messaging import sns_callback
from chalicelib.domain.web import (
    assets,
    form_actions,
    form_fields,
    form_html,
    form_redirect,
    form_uploads,
    pages,
    submissions,
    visitors,
)
from chalicelib.domain.web.hits import Visit

routes = Routes("public", authenticated=False)
TRACKING_COOKIE = "mtc_id"  # Mautic's: the bare contact id, for scripts; never trusted
VISITOR_COOKIE = "mtc_sid"  # the signed visitor token (domain/web/visitors.py)
DEVICE_COOKIE = "mautic_device_id"  # Mautic's device cookie: here the same signed token
CLICKTHROUGH_COOKIE = "mtc_ct"  # the signed click-through of the email link the browser last followed
COOKIE_DAYS = 730
PREFETCH = ("prefetch", "prerender")
ROBOTS_DISALLOW = "noindex, nofollow, noarchive"  # Mautic's header for an asset with `disallow`
# Chalice's default binary types: bodies of these types travel base64 through API Gateway.
BINARY_TYPES = frozenset(downloads.CHALICE_TYPES)


def visit(request: ApiRequest, ctx: Context) -> Visit:
    """The visitor: IP (the gateway's source address; a client's X-Forwarded-For is never trusted),
    referer, query, the contact its signed visitor token names, User-Agent, and whether the browser
    only prefetches."""
    source = core.source_address(request)
    purpose = (request.headers.get("sec-purpose") or request.headers.get("purpose") or "").lower()
    return Visit(
        ip=ip_privacy.stored(source),  # what is stored of it (ANONYMIZE_IP); the limits count the whole source
        source=source,
        referer=request.headers.get("referer"),
        query={k: v for k, v in request.query.items() if isinstance(v, str)},
        contact_id=visitors.contact_of(request.cookies().get(VISITOR_COOKIE), ctx),
        clickthrough=request.cookies().get(CLICKTHROUGH_COOKIE),
        user_agent=request.headers.get("user-agent"),
        prefetch=purpose.startswith(PREFETCH),
        private=config.active().HONOR_PRIVACY_SIGNALS and (_signal(request, "sec-gpc") or _signal(request, "dnt")),
    )


def _signal(request: ApiRequest, header: str) -> bool:
    """Whether the browser sends a privacy signal: `Sec-GPC: 1` (Global Privacy Control) or `DNT: 1`."""
    return (request.headers.get(header) or "").strip() == "1"


def visitor_cookies(
    contact_id: int | None, ctx: Context, private: bool = False, cross_site: bool = False, secure: bool = False
) -> dict[str, list[str]]:
    """The cookies naming the visitor's contact: Mautic's bare id and the signed token (none when the
    visit has no contact, or when the browser asked not to be tracked: `private`). For the requests of
    other sites' pages (`cross_site`: the pixel, mtc.js's), also Mautic's `mautic_device_id` (the same
    token), and `SameSite=None; Secure` over https, without which a browser drops them."""
    if contact_id is None or private:
        return {}
    same_site = "SameSite=None; Secure" if cross_site and secure else "SameSite=Lax"
    lasting = f"Path=/; Max-Age={COOKIE_DAYS * 86400}; {same_site}"
    signed = visitors.token(contact_id, ctx)
    device = [f"{DEVICE_COOKIE}={signed}; {lasting}; HttpOnly"] if cross_site else []
    return {
        "Set-Cookie": [
            f"{TRACKING_COOKIE}={contact_id}; {lasting}",
            f"{VISITOR_COOKIE}={signed}; {lasting}; HttpOnly",
            *device,
        ]
    }


def clickthrough_cookies(visitor: Visit, ctx: Context) -> dict[str, list[str]]:
    """The visitor's cookies, with the click-through of the email link it followed: the device's note
    that ties its later form submissions to that email, as Mautic's page hits of a tracking id do."""
    cookies = visitor_cookies(visitor.contact_id, ctx, visitor.private)
    if visitor.clickthrough and not visitor.private:
        lasting = f"Path=/; Max-Age={COOKIE_DAYS * 86400}; SameSite=Lax; HttpOnly"
        cookies.setdefault("Set-Cookie", []).append(f"{CLICKTHROUGH_COOKIE}={visitor.clickthrough}; {lasting}")
    return cookies


def is_https(request: ApiRequest) -> bool:
    """Whether the visitor reached the service over https (cookies for other sites need Secure)."""
    return request.base_url().startswith("https:")


def _html(title: str, body: str, status: int = 200, headers: dict[str, Any] | None = None) -> Reply:
    """A minimal HTML page."""
    page = (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(title)}</title></head>'
        f"<body>{body}</body></html>"
    )
    return Reply(page, status, headers or {}, "text/html; charset=utf-8")


def _redirect(url: str, headers: dict[str, Any] | None = None, status: int = 302) -> Reply:
    """A redirect to `url` with the given headers (visitor cookies)."""
    return Reply("", status, dict(headers or {}, Location=url), "text/html; charset=utf-8")


@routes.route("/form/submit", "POST")
@routes.route("/form/submit/ajax", "POST")
def submit_form(request: ApiRequest, ctx: Context) -> Answer:
    """Mautic's public form post: `mauticform[...]` fields; an `asset.download` action (the download
    URL) or else the form's postAction decides the answer. An ajax post (a page's script, maybe on
    another site) gets the CORS headers of api/cross_site.py, its field errors included."""
    body = request.body if isinstance(request.body, dict) else {}
    fields = body.get("mauticform")
    data = fields if isinstance(fields, dict) else {}
    ajax = request.raw.path.endswith("/ajax") or request.query.get("ajax") in ("1", "true") or data.get("messenger")
    try:
        reply = _submitted(request, ctx, data, bool(ajax))
    except ValidationError as error:
        if not ajax:
            raise
        raise ApiError(400, str(error), error.fields, headers=cross_site.headers(request)) from None
    return Reply(
        reply.body,
        reply.status,
        dict(cross_site.cookies(request, reply.headers), **cross_site.headers(request)),
        reply.content_type,
    )


def _submitted(request: ApiRequest, ctx: Context, data: dict[str, Any], ajax: bool) -> Reply:
    """The answer to a valid submission (ValidationError otherwise)."""
    form_id = request.query.get("formId") or data.get("formId")
    if form_id in (None, ""):
        raise NotFound("No form was named (formId).")
    if data.get(form_html.HONEYPOT):  # a bot filled the trap: it is thanked, nothing is stored
        return _html("Form", "<p>Thank you for your submission.</p>")
    visitor = visit(request, ctx)
    uploads = form_uploads.uploads_of(request.files)  # the body's file parts, read with it above
    form, submission, contact = submissions.submit(form_id, data, visitor, ctx, uploads)
    headers = visitor_cookies(visitor.contact_id, ctx, visitor.private)
    download = form_actions.download_url(form, ctx)
    action, target = form.get("postAction") or "message", form.get("postActionProperty") or ""
    target = form_redirect.replace(target, submission, contact, ctx, in_url=action == "redirect")
    if ajax:
        answer = {"success": 1, "submissionId": submission["id"], "results": submission["results"]}
        answer.update(
            {"redirect": target}
            if action == "redirect" and target
            else {
                "message": target or "Thank you for your submission.",
                "successMessage": target or "Thank you for your submission.",
            }
        )
        answer.update({"download": download} if download else {})
        answer["formName"] = data.get("formName") or form_fields.form_name(form)
        return Reply(answer, 200, headers)
    if download:
        return _redirect(download, headers)
    if action == "redirect" and target:
        return _redirect(target, headers)
    back = data.get("return") or request.headers.get("referer")
    if action == "return" and back and _may_return_to(back, request):
        return _redirect(back, headers)
    return _html(
        form.get("name") or "Form", f"<p>{escape(target or 'Thank you for your submission.')}</p>", headers=headers
    )


def _may_return_to(url: object, request: ApiRequest) -> bool:
    """Whether a form may send the browser back to `url`: http(s) on the service's own host or a host
    of FORM_RETURN_HOSTS (a leading dot allows subdomains). Anything else would be an open redirect."""
    parts = urlsplit(str(url))
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host:
        return False
    own = (urlsplit(request.base_url()).hostname or "").lower()
    return host == own or any(
        host == allowed.lower() or (allowed.startswith(".") and host.endswith(allowed.lower()))
        for allowed in config.active().FORM_RETURN_HOSTS
    )


PIXEL = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")


def _binary(data: bytes, mime: str, headers: dict[str, Any] | None = None) -> Reply:
    """Bytes as they can travel through API Gateway: binary types as such, text decoded, others as octets."""
    if mime in BINARY_TYPES:
        return Reply(data, 200, headers or {}, mime)
    if mime.startswith("text/") or mime in ("application/json", "application/xml", "text/csv"):
        return Reply(data.decode("utf-8", "replace"), 200, headers or {}, f"{mime}; charset=utf-8")
    return Reply(data, 200, dict(headers or {}, **{"X-Content-Type": mime}), "application/octet-stream")


@routes.route("/mtracking.gif", "GET", media="image/gif")
def tracking_pixel(request: ApiRequest, ctx: Context) -> Answer:
    """Records a page hit by URL for the visitor's contact (tracked, or new); always the 1x1 GIF."""
    contact = pages.pixel_hit(visit(request, ctx), ctx)
    cookies = visitor_cookies(contact["id"] if contact else None, ctx, cross_site=True, secure=is_https(request))
    headers = dict(cookies, **{"Cache-Control": "no-store"})
    return Reply(PIXEL, 200, headers, "image/gif")


@routes.route("/mailer/callback", "POST")
def mailer_callback(request: ApiRequest, ctx: Context) -> Answer:
    """Amazon SNS over HTTPS (Mautic's transport callback): a signed subscription confirmation or
    SES notification of an accepted topic (docs/security.md). 400 for a body that is not JSON (the
    API's parser and depth limit) or no SES notification, 403 (one text, whatever the reason) for a
    message not signed for an accepted topic (nothing written), 502 when the subscription could not
    be confirmed (SNS retries)."""
    try:
        done = sns_callback.receive(request.json())
    except ValueError as error:
        raise ApiError(400, f"The request body is not an SNS message: {error}") from None
    except sns_callback.Refused:
        raise ApiError(403, sns_callback.REFUSED) from None
    except OSError:
        raise ApiError(502, "The subscription could not be confirmed; try again.") from None
    return {"success": True, "result": done}


@routes.route("/asset/{key}", "GET")
def download_asset(request: ApiRequest, ctx: Context, key: str) -> Answer:
    """Serves a local asset's file (or redirects to a remote one) and counts the download."""
    visitor = visit(request, ctx)
    asset, data = assets.download(key, visitor, ctx)
    robots = {"X-Robots-Tag": ROBOTS_DISALLOW} if asset.get("disallow") else {}
    if data is None:
        return _redirect(asset["file"], dict(visitor_cookies(visitor.contact_id, ctx), **robots))
    name = f"{asset.get('alias') or asset['id']}.{asset.get('extension') or 'bin'}"
    disposition = "inline" if request.query.get("stream") in ("1", "true") else "attachment"
    headers = dict(
        visitor_cookies(visitor.contact_id, ctx),
        **{"Content-Disposition": f"{disposition}; filename*=UTF-8''{quote(name)}"},
        **robots,
    )
    return _binary(data, asset.get("mime") or files.mime_of(name), headers)


@routes.route("/forms/results/file/{submission_id}/{field}", "GET")
def form_result_file(request: ApiRequest, ctx: Context, submission_id: str, field: str) -> Answer:
    """Mautic's address of a submission's file: served to anyone only when its field is `public`."""
    return downloads.attachment(*submissions.public_file(submission_id, field, ctx))


@routes.route("/media/images/{name}", "GET")
def image(request: ApiRequest, ctx: Context, name: str) -> Answer:
    """An image of the files bucket."""
    return _binary(*files.read("images", None, name))


@routes.route("/media/images/{subdir}/{name}", "GET")
def image_in_folder(request: ApiRequest, ctx: Context, subdir: str, name: str) -> Answer:
    """An image of a folder of the files bucket."""
    return _binary(*files.read("images", subdir, name))


@routes.route("/dwc/{slot}", "GET")
def dynamic_content_slot(request: ApiRequest, ctx: Context, slot: str) -> Answer:
    """The slot's content for the tracked contact, as HTML; 204 when nothing fits (Mautic's
    `DynamicContentApiController::getAction`, `testDwcGetEndpointForNoSlotNorContact`). A browser that
    asked not to be tracked gets the content for no contact."""
    visitor = visit(request, ctx)
    tracked = None if visitor.private else visitor.contact_id
    contact = pages.tracked_contact(tracked) if tracked else None
    content = dwc_requests.request(slot, contact, request.headers.get("accept-language"), ctx)
    return Reply(content, 200, {}, "text/html; charset=utf-8") if content else Reply("", 204, {}, "text/html")


blueprint = routes.blueprint()
