"""Bearer secrets kept out of answers. A send's tracking hash opens the contact's web view (which
gives the browser the contact's visitor token), unsubscribes the contact and records opens and
clicks as theirs: whoever holds it acts as the contact. It sits in URLs, headers and tokens as well
as under its own key, so a value that holds it is left out wherever it is (docs/security.md)."""

from chalicelib.domain.kernel.types import JSON


def without(value: JSON, secret: str | None) -> JSON:
    """`value` with every entry of an object or array (at any depth) whose text holds `secret` left
    out; `value` itself when there is no secret."""
    if not secret:
        return value
    if isinstance(value, dict):
        return {key: without(item, secret) for key, item in value.items() if not holds(item, secret)}
    if isinstance(value, list):
        return [without(item, secret) for item in value if not holds(item, secret)]
    return value


def holds(value: JSON, secret: str) -> bool:
    """True for a text that contains `secret` (in any case: hashes are hexadecimal)."""
    return isinstance(value, str) and secret.lower() in value.lower()
