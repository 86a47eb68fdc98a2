"""Email addresses: syntax only, as Mautic checks them (no DNS, reserved names such as
`example.test` or `localhost.localdomain` allowed), with email-validator, which loads on first use
(it compiles its patterns when imported)."""

from functools import cache
from types import ModuleType
from typing import Any


@cache
def _validator() -> ModuleType:
    """email-validator's check, told to accept special-use domains (its documented switch:
    the module's SPECIAL_USE_DOMAIN_NAMES list)."""
    import email_validator

    email_validator.SPECIAL_USE_DOMAIN_NAMES = []
    return email_validator


def normalized(address: Any) -> str | None:
    """The address in normal form, or None when it is not a valid email address."""
    validator = _validator()
    try:
        checked: str = validator.validate_email(str(address), check_deliverability=False).normalized
        return checked
    except validator.EmailNotValidError:
        return None
