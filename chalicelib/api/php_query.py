"""PHP-style bracket parameters (`where[0][col]=x`, `ids[]=1`) into nested dicts and lists."""

import re
from collections.abc import Iterable
from typing import Any

_SEGMENT = r"\[([^\[\]]*)\]"
MAX_DEPTH = 32  # bracket levels of one key (PHP's max_input_nesting_level is 64)


class TooDeep(ValueError):
    """A key nests more than MAX_DEPTH levels; `name` is the parameter."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} nests more than {MAX_DEPTH} levels.")
        self.name = name


def _parts(key: str) -> list[str]:
    """`a[b][]` -> ["a", "b", ""]; a key that is not bracket notation is one part."""
    head = key.split("[", 1)[0]
    rest = key[len(head) :]
    segments = re.findall(_SEGMENT, rest)
    if not head or "".join(f"[{s}]" for s in segments) != rest:
        return [key]
    if len(segments) > MAX_DEPTH:
        raise TooDeep(head)
    return [head] + segments


def _assign(node: dict[str, Any] | list[Any], parts: list[str], value: str) -> None:
    """Put `value` at `parts` under `node`, creating the lists and dicts on the way."""
    part, rest = parts[0], parts[1:]
    child: Any
    if isinstance(node, list):
        child = value if not rest else ([] if rest[0] == "" else {})
        node.append(child)
    elif not rest:
        node[part] = value
        return
    else:
        child = node.get(part)
        if not isinstance(child, (dict, list)):
            child = node[part] = [] if rest[0] == "" else {}
    if rest:
        _assign(child, rest, value)


def _listed(node: Any) -> Any:
    """`node` with every object whose keys are "0".."n-1" in order made a list, as PHP's arrays
    are lists then (`array_is_list`): `a[0]=x&a[1]=y`, what `http_build_query` sends, is `["x", "y"]`."""
    if isinstance(node, list):
        return [_listed(item) for item in node]
    if not isinstance(node, dict):
        return node
    items = {key: _listed(value) for key, value in node.items()}
    if items and list(items) == [str(index) for index in range(len(items))]:
        return list(items.values())
    return items


def parse(pairs: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Nest (key, value) pairs: `a[b]=1` -> {"a": {"b": "1"}}, `a[]=1&a[]=2` and `a[0]=1&a[1]=2`
    -> {"a": ["1", "2"]}. Raises TooDeep for a key of more than MAX_DEPTH levels."""
    root: dict[str, Any] = {}
    for key, value in pairs:
        _assign(root, _parts(key), value)
    return {key: _listed(value) for key, value in root.items()}
