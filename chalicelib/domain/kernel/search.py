"""Mautic list ``search`` strings: parse them into a small AST and evaluate it against documents.

Grammar, loosest binding first (juxtaposition means AND)::

    expr  := conj ( ("OR" | "or") conj )*
    conj  := unary ( ["AND" | "and"] unary )*
    unary := "!"* ( "(" expr ")" | term | command )

A term is a bare word or a ``"quoted phrase"``; a leading ``+`` makes it strict. A command is
``name:value``; the value is a quoted string or the rest of the word up to whitespace or ``)``, and a
``+`` before the name or the value makes it strict. Whether a term or command matches is up to the
resource, through the callbacks given to :func:`evaluate`; :func:`like` and :func:`split_ids` help
with that.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from chalicelib.records import by_value

D = TypeVar("D")  # the document a search is evaluated against


class SearchSyntaxError(ValueError):
    """The search string is malformed; the message says what is wrong."""


@by_value
class Term:
    """Free text; ``strict`` when written with a leading ``+``."""

    text: str
    strict: bool


@by_value
class Command:
    """``name:value``; ``name`` is lower-cased, ``strict`` when the value (or the token) began with ``+``."""

    name: str
    value: str
    strict: bool


@by_value
class Not:
    """Negation of ``node``."""

    node: Node


@by_value
class And:
    """All of ``nodes`` (at least two) must match."""

    nodes: tuple[Node, ...]


@by_value
class Or:
    """Any of ``nodes`` (at least two) must match."""

    nodes: tuple[Node, ...]


Node = Term | Command | Not | And | Or

_COMMAND = re.compile(r"([A-Za-z0-9_.]+):")
_BARE = re.compile(r"[^\s)]*")
_KEYWORDS = {"OR": "OR", "or": "OR", "AND": "AND", "and": "AND"}
_MAX_DEPTH = 50


def _word(text: str, i: int) -> tuple[str, bool, int]:
    """Read a quoted string or a bare word at ``i``; return (word, quoted, next index)."""
    if text.startswith('"', i):
        end = text.find('"', i + 1)
        if end < 0:
            raise SearchSyntaxError(f"unterminated quote at position {i}")
        return text[i + 1 : end], True, end + 1
    bare = _BARE.match(text, i)
    assert bare is not None  # the pattern matches the empty string anywhere
    return bare.group(), False, bare.end()


def _tokens(text: str) -> Iterator[tuple[str, Node | None]]:
    """Yield (kind, node) pairs: kind is '(', ')', '!', 'OR', 'AND' or 'NODE' (node set)."""
    i = 0
    while i < len(text):
        char = text[i]
        if char.isspace():
            i += 1
            continue
        if char in "()!":
            yield char, None
            i += 1
            continue
        strict = char == "+"
        i += strict
        command = _COMMAND.match(text, i)
        if command:
            i = command.end()
            if text.startswith("+", i):
                strict, i = True, i + 1
            value, _, i = _word(text, i)
            yield "NODE", Command(command.group(1).lower(), value, strict)
            continue
        word, quoted, i = _word(text, i)
        if not (word or quoted):
            raise SearchSyntaxError(f"'+' at position {i - 1} must be followed by a term")
        keyword = None if strict or quoted else _KEYWORDS.get(word)
        yield (keyword, None) if keyword else ("NODE", Term(word, strict))


def _group(cls: type[And] | type[Or], nodes: Sequence[Node]) -> Node:
    """Build ``cls(nodes)``, flattening children of the same type; a single node is returned as is."""
    flat = [child for node in nodes for child in (node.nodes if isinstance(node, cls) else (node,))]
    return flat[0] if len(flat) == 1 else cls(tuple(flat))


class _Parser:
    """Recursive-descent parser over the token list, following the grammar in the module docstring."""

    def __init__(self, text: str) -> None:
        self.tokens = list(_tokens(text))
        self.pos = 0

    def peek(self) -> str | None:
        """The kind of the next token, None at the end."""
        return self.tokens[self.pos][0] if self.pos < len(self.tokens) else None

    def expr(self, depth: int) -> Node:
        """`conj ( OR conj )*`, at `depth` parentheses."""
        nodes = [self.conj(depth)]
        while self.peek() == "OR":
            self.pos += 1
            nodes.append(self.conj(depth))
        return _group(Or, nodes)

    def conj(self, depth: int) -> Node:
        """`unary ( [AND] unary )*`."""
        nodes = [self.unary(depth)]
        while self.peek() not in (None, ")", "OR"):
            self.pos += self.peek() == "AND"
            nodes.append(self.unary(depth))
        return _group(And, nodes)

    def unary(self, depth: int) -> Node:
        """`!* ( "(" expr ")" | term | command )`."""
        negated = False
        while self.peek() == "!":
            negated, self.pos = not negated, self.pos + 1
        kind = self.peek()
        if kind == "NODE":
            node = self.tokens[self.pos][1]
            assert node is not None  # a NODE token carries its node
            self.pos += 1
        elif kind == "(":
            if depth >= _MAX_DEPTH:
                raise SearchSyntaxError(f"parentheses nested deeper than {_MAX_DEPTH} levels")
            self.pos += 1
            node = self.expr(depth + 1)
            if self.peek() != ")":
                raise SearchSyntaxError("unbalanced parenthesis: missing ')'")
            self.pos += 1
        else:
            raise SearchSyntaxError(self.unexpected(kind, negated))
        return (node.node if isinstance(node, Not) else Not(node)) if negated else node

    def unexpected(self, kind: str | None, negated: bool) -> str:
        """Explain why a term or group was expected but ``kind`` was found."""
        before = self.tokens[self.pos - 1][0] if self.pos else None
        if negated:
            return "dangling '!': it must be followed by a term, a command or a group"
        if before in ("OR", "AND"):
            return f"dangling {before}: it must be followed by a term, a command or a group"
        if kind in ("OR", "AND"):
            return f"{kind} must come after a term, a command or a group"
        if kind == ")" and before == "(":
            return "empty parentheses"
        return "unbalanced parenthesis: missing ')'" if kind is None else "unbalanced parenthesis: unexpected ')'"


def parse(text: str | None) -> Node | None:
    """Parse a search string into a Node; None or blank text gives None. Raises SearchSyntaxError."""
    if text is None or not text.strip():
        return None
    parser = _Parser(text)
    node = parser.expr(0)
    if parser.pos < len(parser.tokens):  # only a stray ')' can stop the top-level expression early
        raise SearchSyntaxError("unbalanced parenthesis: unexpected ')'")
    return node


def evaluate(
    node: Node | None,
    doc: D,
    on_term: Callable[[D, Term], bool],
    on_command: Callable[[D, Command], bool],
) -> bool:
    """Whether ``doc`` matches ``node`` (None matches everything); leaves are decided by the callbacks."""
    if node is None:
        return True
    if isinstance(node, Term):
        return bool(on_term(doc, node))
    if isinstance(node, Command):
        return bool(on_command(doc, node))
    if isinstance(node, Not):
        return not evaluate(node.node, doc, on_term, on_command)
    if not isinstance(node, (And, Or)):
        raise TypeError(f"not a search node: {node!r}")
    results = (evaluate(child, doc, on_term, on_command) for child in node.nodes)
    return all(results) if isinstance(node, And) else any(results)


def like(value: Any, pattern: str, *, contains: bool) -> bool:
    """Case-insensitive SQL-LIKE match where '%' matches any run of characters.

    Without '%' in the pattern: substring match if ``contains`` else equality. None never matches;
    other values are compared as ``str(value)``, booleans as '1'/'0'.
    """
    if value is None:
        return False
    text = ("1" if value else "0") if isinstance(value, bool) else str(value)
    text, pattern = text.casefold(), pattern.casefold()
    if "%" not in pattern:
        return pattern in text if contains else pattern == text
    first, *middle, last = pattern.split("%")
    if len(text) < len(first) + len(last) or not (text.startswith(first) and text.endswith(last)):
        return False
    pos, end = len(first), len(text) - len(last)
    for part in middle:  # leftmost placement of each fixed part is always safe
        pos = text.find(part, pos, end)
        if pos < 0:
            return False
        pos += len(part)
    return True


def split_ids(value: str) -> list[int]:
    """Parse a comma-separated id list ('1,2, 3' -> [1, 2, 3]), ignoring blanks.

    Raises SearchSyntaxError naming the first part that is not a non-negative integer.
    """
    ids = []
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        if not (part.isascii() and part.isdigit()):
            raise SearchSyntaxError(f"not an id: {part!r}")
        ids.append(int(part))
    return ids
