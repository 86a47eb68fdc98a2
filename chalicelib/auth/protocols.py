"""What auth reads of an HTTP request, and the names of its JSON values.

Auth sits below the API layer, so it cannot name `api/request.py`'s `ApiRequest`; the `Request`
Protocol lists what `core.py` and `oauth1.py` use of it.
"""

from collections.abc import Mapping
from typing import Any, Protocol

from chalicelib.domain.kernel.types import JSON, Doc


class Request(Protocol):
    """The parsed HTTP request as auth sees it (`api/request.py`'s `ApiRequest` is one)."""

    method: str
    query: Doc
    raw: Any  # chalice.app.Request: `context`, `query_params`, `raw_body`, `path`

    @property
    def headers(self) -> Mapping[str, str]:
        """The request headers, looked up by lowercase name."""

    @property
    def content_type(self) -> str:
        """The media type of the body, lowercased, without parameters."""

    @property
    def body(self) -> JSON:
        """The parsed body."""

    def form_field(self, name: str) -> str | None:
        """A string field of a form-encoded body, or None."""

    def url(self) -> str:
        """The absolute URL the client called, without the query string."""
