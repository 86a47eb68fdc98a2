"""How large a JSON answer may be (docs/security.md "Sizes are bounded").

Lambda answers at most 6 MB, counted on the response it returns to API Gateway, where the JSON body is a
string: each quote and backslash of it takes one more byte. Past that API Gateway answers 502 to everyone who asks
for the page. So an answer is measured as Lambda carries it and held to `ANSWER_MAX_BYTES` (5 MiB, room for
the headers): a list page keeps the items that fit and says where the next page starts
(`api/standard.py`); any other answer over it is a 400 that says what to ask for instead.
"""

import json
from collections.abc import Sequence

from chalicelib import config
from chalicelib.api.errors import ApiError
from chalicelib.domain.kernel.types import JSON

ENVELOPE_BYTES = 64 * 1024  # a list answer's own keys (total, next, ids as keys) and the headers, generously


def carried(text: str) -> int:
    """The bytes a JSON answer takes in Lambda's response, where it is a JSON string itself (our answers
    are ASCII: json.dumps escapes the rest, control characters included, with a backslash)."""
    return len(text) + text.count('"') + text.count("\\")


def fitting(items: Sequence[JSON]) -> int:
    """How many of a page's items, from the first, fit in one answer (at least one: a single item is held
    to the store's document size, far below an answer's)."""
    budget, kept = config.active().ANSWER_MAX_BYTES - ENVELOPE_BYTES, 0
    for item in items:
        budget -= carried(json.dumps(item, separators=(",", ":"))) + 1
        if budget < 0:
            return max(kept, 1)
        kept += 1
    return kept


def check(text: str) -> None:
    """ApiError 400 when a JSON answer would be larger than Lambda may return."""
    size = carried(text)
    if size > config.active().ANSWER_MAX_BYTES:
        message = (
            f"The answer would be {size:,} bytes, over the {config.active().ANSWER_MAX_BYTES:,} an answer may have; "
            "ask for fewer items (limit) or fewer properties (minimal)."
        )
        raise ApiError(400, message, {"limit": [message]})
