"""How deeply parsed JSON nests, counted without recursion, so a hostile document (a request body, an
SNS notification) is refused by its depth instead of crashing a recursive walk."""

from typing import Any


def depth(data: Any, limit: int) -> int:
    """Levels of nested objects and arrays in `data`; stops counting one past `limit`."""
    deepest, stack = 0, [(data, 0)]
    while stack and deepest <= limit:
        node, level = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, level + 1)
            stack.extend((child, level + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest
