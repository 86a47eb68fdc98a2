r"""Text patterns of segment filters, matched in time linear in the text: every contact write (public
form posts and pixel hits included) evaluates every published segment, so no pattern a client
saves may backtrack.

``like`` is SQL LIKE (``%`` any run, ``_`` one character, ``\`` escapes the next character),
matched segment by segment; ``regexp`` is RE2 (google-re2): no backreferences or lookarounds, and
an expression RE2 refuses is a 400 on save. Both compare case-insensitively, and see at most
MAX_TEXT characters of a value (MySQL's TEXT, the longest text field Mautic stores).
"""

from collections.abc import Callable

MAX_TEXT = 65535
ANY = None  # `_` in a LIKE segment
Segment = tuple[str | None, ...]  # the characters of a LIKE segment, ANY for `_`


def _segments(pattern: str) -> list[Segment]:
    """The `%`-separated segments of a LIKE pattern: tuples of characters, ANY for `_`."""
    segments: list[Segment] = []
    current: list[str | None] = []
    chars = iter(pattern.casefold())
    for char in chars:
        if char == "\\":
            current.append(next(chars, "\\"))
        elif char == "%":
            segments.append(tuple(current))
            current = []
        else:
            current.append(ANY if char == "_" else char)
    segments.append(tuple(current))
    return segments


def _fits(segment: Segment, text: str, at: int) -> bool:
    return at + len(segment) <= len(text) and all(c is ANY or c == text[at + i] for i, c in enumerate(segment))


def _find(segment: Segment, text: str, start: int, end: int) -> int:
    """The first position >= start where `segment` fits wholly before `end`, or -1."""
    if ANY not in segment:
        return text.find("".join(c for c in segment if c is not ANY), start, end)  # none is
    for at in range(start, end - len(segment) + 1):  # the range keeps the segment before `end`
        if _fits(segment, text, at):
            return at
    return -1


def like(pattern: str) -> Callable[[str], bool]:
    """The test of SQL ``value LIKE pattern`` (case-insensitive): each middle segment at its leftmost
    place, which never loses a match, so the work is linear in the text for a given pattern."""
    first, *middle = _segments(pattern)
    last = middle.pop() if middle else None

    def test(value: str) -> bool:
        text = value[:MAX_TEXT].casefold()
        if last is None:
            return len(text) == len(first) and _fits(first, text, 0)
        end = len(text) - len(last)
        if end < len(first) or not (_fits(first, text, 0) and _fits(last, text, end)):
            return False
        at = len(first)
        for segment in middle:
            at = _find(segment, text, at, end)
            if at < 0:
                return False
            at += len(segment)
        return True

    return test


def regexp(expression: str) -> Callable[[str], bool]:
    """The test of ``value REGEXP expression`` (a search, case-insensitive), or ValueError when RE2
    cannot compile it. RE2 is imported here, by the first `regexp` filter, not by every process that
    loads segments (a worker's cold start)."""
    import re2

    options = re2.Options()
    options.case_sensitive, options.log_errors = False, False
    try:
        compiled = re2.compile(expression, options)
    except re2.error as error:
        reason = error.args[0].decode() if error.args and isinstance(error.args[0], bytes) else str(error)
        raise ValueError(f"Invalid regular expression '{expression}': {reason}.") from None
    return lambda value: compiled.search(value[:MAX_TEXT]) is not None
