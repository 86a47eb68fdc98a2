"""A field's `validation` options, as Mautic's FormValidationSubscriber applies them to a submitted
value that is not empty: `international` on a `tel` field (the number must read as +<country code>
<subscriber number>, as libphonenumber parses it without a region) and `donotsubmit` on an `email`
field (refused when it matches a pattern of the instance's DO_NOT_SUBMIT_EMAILS, shell wildcards,
any case). Each has its message (`international_validationmsg`, `donotsubmit_validationmsg`)."""

import fnmatch
import re

from chalicelib import config
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.web.phone_codes import CALLING_CODES

PHONE_INVALID = (
    "Please use the following international phone number format [+][country code][subscriber number] "
    "for this field (eg: \u202a+14028650000)."
)
EMAIL_REFUSED = "Cannot be sent with this email"
PHONE_CHARACTERS = r"^\+[0-9 ().\-/]+$"


def error(field: Doc, value: str) -> str | None:
    """The message of the first `validation` option the value fails, or None."""
    options = field.get("validation") or {}
    if field.get("type") == "tel" and _on(options.get("international")) and not international(value):
        return str(options.get("international_validationmsg") or PHONE_INVALID)
    if field.get("type") == "email" and _on(options.get("donotsubmit")) and refused_email(value):
        return str(options.get("donotsubmit_validationmsg") or EMAIL_REFUSED)
    return None


def _on(flag: object) -> bool:
    """A checkbox option as Mautic stores it (1, "1", true)."""
    return flag not in (None, False, 0, "0", "", "false")


def international(value: str) -> bool:
    """Whether a number reads as international: `+`, a country calling code that exists, then 2 to
    17 digits of subscriber number (libphonenumber's lengths), with the usual separators."""
    if not re.match(PHONE_CHARACTERS, value.strip()):
        return False
    digits = re.sub(r"\D", "", value)
    code = next((digits[:n] for n in (1, 2, 3) if digits[:n] in CALLING_CODES), None)
    return code is not None and 2 <= len(digits) - len(code) <= 17


def refused_email(value: str) -> bool:
    """Whether an address matches one of DO_NOT_SUBMIT_EMAILS (`*@gmail.com`, `*@*.ru`...)."""
    address = value.strip().lower()
    return any(fnmatch.fnmatchcase(address, pattern.lower()) for pattern in config.active().DO_NOT_SUBMIT_EMAILS)
