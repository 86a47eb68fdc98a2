"""Authentication failures: status, message, OAuth-style error type and response headers."""


class AuthError(Exception):
    """The request may not proceed. Rendered as `{"errors": [{"message", "code", "type"}]}`."""

    def __init__(self, status, message, error_type="access_denied", headers=None):
        super().__init__(message)
        self.status, self.message, self.type, self.headers = status, message, error_type, headers or {}
