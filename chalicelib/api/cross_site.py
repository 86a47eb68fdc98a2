"""What a third-party website needs to post an embedded form with fetch and read the answer: CORS
headers naming the page's origin (with credentials, so the visitor's cookies travel) when the origin
is one of FORM_ALLOWED_ORIGINS (`*`: any), and the visitor cookies marked `SameSite=None; Secure`
on a cross-site HTTPS answer (a `Lax` cookie is neither sent nor stored from another site's page)."""

from typing import Any
from urllib.parse import urlsplit

from chalicelib import config
from chalicelib.api.request import ApiRequest


def _origin(request: ApiRequest) -> str | None:
    """The calling page's origin when it is allowed, else None."""
    origin = (request.headers.get("origin") or "").strip()
    if not origin or origin == "null":
        return None
    allowed = config.active().FORM_ALLOWED_ORIGINS
    return origin if "*" in allowed or origin.rstrip("/") in (o.rstrip("/") for o in allowed) else None


def headers(request: ApiRequest) -> dict[str, str]:
    """The CORS headers of an answer to an allowed origin (none for a same-site or refused one)."""
    origin = _origin(request)
    if origin is None:
        return {"Vary": "Origin"}
    return {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Credentials": "true",
        "Vary": "Origin",
    }


def cookies(request: ApiRequest, answer: dict[str, Any]) -> dict[str, Any]:
    """`answer`'s headers with its cookies usable from another site's page: `SameSite=None; Secure` when
    the call came over HTTPS from another host (browsers refuse `None` without `Secure`)."""
    origin = _origin(request)
    own = (urlsplit(request.base_url()).hostname or "").lower()
    secure = request.base_url().startswith("https://")
    if origin is None or not secure or (urlsplit(origin).hostname or "").lower() == own:
        return answer
    values = answer.get("Set-Cookie") or []
    return dict(answer, **{"Set-Cookie": [v.replace("SameSite=Lax", "SameSite=None; Secure") for v in values]})
