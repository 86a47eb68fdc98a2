"""Mautic's `htmlAttributesStringToArray`: a field's `labelAttributes`, `inputAttributes`,
`containerAttributes` and a form's `formAttributes` (`class="wide" data-x='1' required`) read as
attributes, merged with the ones the template sets (classes add up) and written back escaped, so a
value can never break out of its tag."""

import re
from html import escape

from chalicelib.domain.kernel.types import JSON

ATTRIBUTE = r"""([A-Za-z_:][-A-Za-z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?"""
Attrs = dict[str, list[str] | str]


def parse(text: JSON) -> Attrs:
    """The attributes of a string (`class` as a list of names); event handlers (`on…`) are dropped."""
    found: Attrs = {}
    for match in re.finditer(ATTRIBUTE, str(text or "")):
        name = match.group(1).lower()
        value = next((g for g in match.groups()[1:] if g is not None), "")
        if name.startswith("on"):
            continue
        found[name] = value.split() if name == "class" else value
    return found


def merged(base: Attrs, extra: Attrs) -> Attrs:
    """`extra` over `base`, except `class` whose names add up (Mautic merges them the same way)."""
    out = dict(base)
    for name, value in extra.items():
        if name == "class":
            out["class"] = list(out.get("class") or []) + [c for c in value if c]
        else:
            out[name] = value
    return out


def render(attrs: Attrs) -> str:
    """` name="value"` for each attribute (lists joined by spaces), escaped."""
    return "".join(
        f' {name}="{escape(" ".join(v) if isinstance(v, list) else str(v), quote=True)}"' for name, v in attrs.items()
    )
