"""The caller of a request and per-request caches."""

from dataclasses import dataclass
from dataclasses import field as dc_field

from chalicelib.domain.kernel import clock


@dataclass
class Context:
    """Who acts (a user document), the public base URL, and memoised look-ups for one request."""

    user: dict | None = None
    client: str | None = None  # the API client (OAuth2 client, OAuth1a consumer) acting for the user; None for Basic
    base_url: str = ""
    now: str = dc_field(default_factory=clock.now_iso)
    cache: dict = dc_field(default_factory=dict)

    @property
    def user_id(self):
        return self.user["id"] if self.user else None

    @property
    def user_name(self):
        if not self.user:
            return None
        name = f"{self.user.get('firstName') or ''} {self.user.get('lastName') or ''}".strip()
        return name or self.user.get("username")

    def memo(self, key, compute):
        """compute() once per request for `key`."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]
