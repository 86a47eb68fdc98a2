"""Emails and pages rendered with the theme their `template` names (Mautic's ThemeBundle).

Mautic renders a theme's `html/email.html.twig` (`html/page.html.twig` for a page) with the
content in its slots when the document has no `customHtml` (MailHelper::setEmail, the page's
PublicController); its builder otherwise writes the theme into `customHtml` itself. Here:

- `customHtml` that is a whole document (it holds `<html`) is used as it is: the theme is already in it;
- otherwise the theme's template is the frame and `customHtml` (a fragment, or nothing) its content:
  placed at `{{ content }}` / `{{ content|raw }}`, a main slot `{{ slot('body') }}` (also `content`,
  `main`; other slots are empty) or `{content}`; a theme without any of them gets the content before
  `</body>`;
- a template that `{% extends %}` another of the theme (every Mautic theme extends `base.html.twig`)
  is put in its blocks, one level deep; any other Twig (`{{ ... }}`, `{% ... %}`, `{# ... #}`:
  asset URLs, scripts) is left out, so a theme renders without a Twig engine. Mautic's tokens
  (`{subject}`, `{contactfield=...}`) stay for the token renderer;
- an unknown theme (never installed, or deleted) leaves `customHtml` as it is.

Themes are read from the files bucket (`themes/<key>/theme.zip`, written by domain/views/themes.py)
and kept per container for `TTL` seconds, so a segment send reads each theme once a minute at most.
"""

import io
import re
import time
import zipfile
from collections.abc import Iterator, Mapping

from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.types import JSON
from chalicelib.ports import files as bucket

PREFIX = "themes/"
TTL = 60.0  # seconds a container keeps a theme's templates (a reinstalled theme shows after this)
KEY = r"[A-Za-z0-9_\-]+"
MAIN_SLOTS = frozenset({"body", "content", "main"})
BLANK_HTML = (
    "<!DOCTYPE html>\n<html>\n<head>{% block head %}{% endblock %}</head>\n<body>{{ content|raw }}</body>\n</html>\n"
)
BUILT_IN = {"blank": {f"html/{name}.html.twig": BLANK_HTML for name in ("message", "email", "page", "form")}}

_OPEN = re.compile(r"{content}|{[{%#]")  # where a Twig tag (or the `{content}` placeholder) starts
_CLOSE = {"{{": "}}", "{%": "%}", "{#": "#}"}
_CONTENT = r"{content}|{{-?\s*content\s*(?:\|\s*raw\s*)?-?}}"
_SLOT = r"(?s){{-?\s*slot\(\s*['\"]([\w.\-]+)['\"].*"
_BLOCK = r"{%-?\s*block\s+(\w+)\s*-?%}"
_ENDBLOCK = r"{%-?\s*endblock(?:\s+\w+)?\s*-?%}"
_EXTENDS = r"(?s){%-?\s*extends\s.*?(html/[\w.\-]+\.twig).*"
_cache: dict[str, tuple[float, dict[str, str] | None]] = {}


def _read(data: bytes) -> dict[str, str]:
    """{path: text} of the Twig templates of a theme zip (checked when it was installed)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {
            name: archive.read(name).decode("utf-8", "replace")
            for name in archive.namelist()
            if name.startswith("html/") and name.endswith(".twig")
        }


def templates(key: str) -> dict[str, str] | None:
    """{path: text} of a theme's templates, or None for no such theme (one S3 GetObject per TTL)."""
    if key in BUILT_IN:
        return BUILT_IN[key]
    now = time.time()
    hit = _cache.get(key)
    if hit is not None and clock.fresh(hit[0], TTL, now):
        return hit[1]
    found = bucket.get(f"{PREFIX}{key}/theme.zip") if re.fullmatch(KEY, key) else None
    try:
        texts = _read(found[0]) if found else None
    except (zipfile.BadZipFile, KeyError):
        texts = None
    _cache[key] = (now, texts)
    return texts


def forget() -> None:
    """Drop the kept templates (a theme installed or deleted here shows at once; tests)."""
    _cache.clear()


def _tags(source: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, text) of each Twig tag and `{content}` in order. Linear in the source: an opening
    whose closing is nowhere after it is left as text, and so is every later opening of its kind."""
    position, unclosed = 0, set()
    while (found := _OPEN.search(source, position)) is not None:
        start, opening = found.start(), found.group()
        if opening == "{content}":
            yield start, found.end(), opening
            position = found.end()
            continue
        end = -1 if opening in unclosed else source.find(_CLOSE[opening], start + 2)
        if end < 0:
            unclosed.add(opening)
            position = start + 2
            continue
        yield start, end + 2, source[start : end + 2]
        position = end + 2


def _blocks(source: str) -> list[tuple[str, int, int, int, int]]:
    """(name, start, body start, body end, end) of the outermost `{% block %}`s of a template."""
    stack: list[tuple[str, int, int]] = []
    found = []
    for start, end, text in _tags(source):
        opening = re.fullmatch(_BLOCK, text)
        if opening:
            stack.append((opening.group(1), start, end))
        elif re.fullmatch(_ENDBLOCK, text) and stack:
            name, block_start, body_start = stack.pop()
            if not stack:
                found.append((name, block_start, body_start, start, end))
    return found


def _source(texts: Mapping[str, str], feature: str) -> str | None:
    """The theme's template for `feature`, with a parent it extends filled in with its blocks."""
    child = texts.get(f"html/{feature}.html.twig")
    if child is None:
        return None
    parent = next((re.fullmatch(_EXTENDS, text) for _, _, text in _tags(child) if re.fullmatch(_EXTENDS, text)), None)
    base = texts.get(parent.group(1)) if parent else None
    if base is None:
        return child
    given = {name: child[body:body_end] for name, _, body, body_end, _ in _blocks(child)}
    parts, position = [], 0
    for name, start, body, body_end, end in _blocks(base):
        parts += [base[position:start], given.get(name, base[body:body_end])]
        position = end
    return "".join(parts) + base[position:]


def _placed(source: str, content: str) -> str:
    """The theme with `content` at its content placeholders and every other Twig tag left out (one
    pass: the content itself is never read as a template)."""
    parts, position, placed = [], 0, False
    for start, end, text in _tags(source):
        slot = re.fullmatch(_SLOT, text)
        main = re.fullmatch(_CONTENT, text) is not None or (slot is not None and slot.group(1) in MAIN_SLOTS)
        parts += [source[position:start], content if main else ""]
        placed, position = placed or main, end
    html = "".join(parts) + source[position:]
    if placed or not content:
        return html
    end = html.lower().rfind("</body>")
    return html[:end] + content + html[end:] if end >= 0 else html + content


def themed(doc: Mapping[str, JSON], feature: str) -> str:
    """The HTML template of an email (`feature` "email") or page ("page"): its `customHtml`, in the
    frame of the theme its `template` names (see the module's docstring)."""
    html = str(doc.get("customHtml") or "")
    key = doc.get("template")
    if not key or not isinstance(key, str) or "<html" in html.lower():
        return html
    texts = templates(key)
    source = _source(texts, feature) if texts else None
    return html if source is None else _placed(source, html)
