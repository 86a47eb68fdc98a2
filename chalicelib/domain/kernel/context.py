"""The caller of a request and per-request caches."""

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any, TypeVar

from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.types import Doc

T = TypeVar("T")


@dataclass(eq=False, repr=False)
class Context:
    """Who acts (a user document), the public base URL, and memoised look-ups for one request."""

    user: Doc | None = None
    client: str | None = None  # the API client (OAuth2 client, OAuth1a consumer) acting for the user; None for Basic
    base_url: str = ""
    now: str = dc_field(default_factory=clock.now_iso)
    cache: dict[Any, Any] = dc_field(default_factory=dict)  # keyed by kernel/cache_keys.py

    @property
    def user_id(self) -> int | None:
        """The acting user's id (None for the system)."""
        return self.user["id"] if self.user else None

    @property
    def user_name(self) -> str | None:
        """The acting user's full name (else username) as audit stamps show it; None for the system."""
        if not self.user:
            return None
        name = f"{self.user.get('firstName') or ''} {self.user.get('lastName') or ''}".strip()
        return name or self.user.get("username")

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """compute() once per request for `key`."""
        if key not in self.cache:
            self.cache[key] = compute()
        value: T = self.cache[key]
        return value
