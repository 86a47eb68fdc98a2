"""Files answered as downloads (a form submission's upload): the bytes with their own content type and an
attachment disposition, whatever the request's Accept header (api/path_routing.py `AnyAccept`).

Chalice base64-encodes an answer for API Gateway only when its content type is one of the app's binary
types; `BINARY_TYPES` adds the types of the uploads this service takes (PDF, office documents, media) to
chalice's defaults, and `app.py` declares them. A type outside them travels as `application/octet-stream`
with the real type in `X-Content-Type`; a text file as text when it is UTF-8.
"""

from urllib.parse import quote

from chalicelib.api.routing import Reply
from chalicelib.domain.kernel import files

CHALICE_TYPES = (
    "application/octet-stream",
    "application/x-tar",
    "application/zip",
    "audio/basic",
    "audio/ogg",
    "audio/mp4",
    "audio/mpeg",
    "audio/wav",
    "audio/webm",
    "image/png",
    "image/jpg",
    "image/jpeg",
    "image/gif",
    "video/ogg",
    "video/mpeg",
    "video/webm",
)
# The binary types of the allowed upload extensions that chalice does not declare by itself.
EXTRA_BINARY_TYPES = tuple(
    sorted(m for m in set(files.UPLOAD_TYPES.values()) - set(CHALICE_TYPES) if not m.startswith("text/"))
)
BINARY_TYPES = frozenset(CHALICE_TYPES + EXTRA_BINARY_TYPES)


def attachment(data: bytes, mime: str, name: str) -> Reply:
    """A file to save, named `name`: binary types as themselves, UTF-8 text as text, anything else as
    octets with its real type in `X-Content-Type`."""
    headers = {
        "Content-Disposition": f"attachment; filename*=UTF-8''{quote(name)}",
        "X-Content-Type-Options": "nosniff",
    }
    if mime in BINARY_TYPES:
        return Reply(data, 200, headers, mime)
    if mime.startswith("text/"):
        try:
            return Reply(data.decode("utf-8"), 200, headers, f"{mime}; charset=utf-8")
        except UnicodeDecodeError:
            pass
    return Reply(data, 200, dict(headers, **{"X-Content-Type": mime}), "application/octet-stream")
