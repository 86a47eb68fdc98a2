"""Authentication failures: status, message, OAuth-style error type and response headers."""

from collections.abc import Mapping


class AuthError(Exception):
    """The request may not proceed. Rendered as `{"errors": [{"message", "code", "type"}]}`."""

    def __init__(
        self, status: int, message: str, error_type: str = "access_denied", headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.type, self.headers = status, message, error_type, headers or {}


NO_CREDENTIALS = "API authorization denied."
BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="Service"'}
API_DISABLED = "API disabled. You need to enable the API in the API settings of Mautic's Configuration."


def require_api(current: Mapping[str, object], headers: dict[str, str] | None = None) -> None:
    """403 `api_disabled` unless the API switch of the settings `current` is on."""
    if not current["apiEnabled"]:
        raise AuthError(403, API_DISABLED, "api_disabled", headers)
