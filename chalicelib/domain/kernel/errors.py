"""Domain failures, mapped to HTTP statuses by the API layer."""


class DomainError(Exception):
    """Base of the failures a client can cause."""

    status = 400
    headers = {}

    def __init__(self, message, details=None):
        super().__init__(message)
        self.message = message
        self.details = details if details is not None else []


class ValidationError(DomainError):
    """Invalid input: `fields` maps each field name to its messages."""

    def __init__(self, fields, message=None):
        self.fields = {name: list(messages) for name, messages in fields.items()}
        message = message or ", ".join(f"{name}: {msg}" for name, msgs in self.fields.items() for msg in msgs)
        super().__init__(message, self.fields)


class NotFound(DomainError):
    status = 404

    def __init__(self, message="Item was not found."):
        super().__init__(message)


class Stale(DomainError):
    """The entity changed between our read and our write (the write is retried before this reaches a client)."""

    status = 409

    def __init__(self, message="The item was changed by another request at the same time; try again."):
        super().__init__(message)


class Forbidden(DomainError):
    status = 403

    def __init__(self, message="You do not have access to the requested area/action."):
        super().__init__(message)


class TooMany(DomainError):
    """Too many requests from one source in a window: 429, with `Retry-After`."""

    status = 429

    def __init__(self, message, retry_after):
        super().__init__(message)
        self.headers = {"Retry-After": str(retry_after)}


def invalid(field, message):
    """A ValidationError for one field."""
    return ValidationError({field: [message]})
