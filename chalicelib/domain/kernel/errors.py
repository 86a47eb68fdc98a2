"""Domain failures, mapped to HTTP statuses by the API layer."""

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar


class DomainError(Exception):
    """Base of the failures a client can cause."""

    status: ClassVar[int] = 400
    headers: dict[str, str] = {}  # none by default; TooMany sets its own per instance

    def __init__(self, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details if details is not None else []


class ValidationError(DomainError):
    """Invalid input: `fields` maps each field name to its messages."""

    def __init__(self, fields: Mapping[str, Iterable[str]], message: str | None = None) -> None:
        self.fields = {name: list(messages) for name, messages in fields.items()}
        message = message or ", ".join(f"{name}: {msg}" for name, msgs in self.fields.items() for msg in msgs)
        super().__init__(message, self.fields)


class Unprocessable(ValidationError):
    """A valid request the entity's state refuses (Mautic's 422: a segment in use cannot be unpublished)."""

    status = 422


class NotFound(DomainError):
    """The item does not exist (or the path names none)."""

    status = 404

    def __init__(self, message: str = "Item was not found.") -> None:
        super().__init__(message)


class Stale(DomainError):
    """The entity changed between our read and our write (the write is retried before this reaches a client)."""

    status = 409

    def __init__(self, message: str = "The item was changed by another request at the same time; try again.") -> None:
        super().__init__(message)


class Forbidden(DomainError):
    """The caller may not do this."""

    status = 403

    def __init__(self, message: str = "You do not have access to the requested area/action.") -> None:
        super().__init__(message)


class TooMany(DomainError):
    """Too many requests from one source in a window: 429, with `Retry-After`."""

    status = 429

    def __init__(self, message: str, retry_after: int | float | str) -> None:
        super().__init__(message)
        self.headers = {"Retry-After": str(retry_after)}


def invalid(field: str, message: str) -> ValidationError:
    """A ValidationError for one field."""
    return ValidationError({field: [message]})
