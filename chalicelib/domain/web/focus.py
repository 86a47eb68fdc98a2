"""Focus items (Mautic's Focus plugin): a bar, modal, notification or full page shown on a website to
collect data with a form, show a notice or emphasise a link.

`form` holds the id of the form a `form` item shows (checked on write, shown as the id, as Mautic's
serializer does). `cache` is read-only: Mautic keeps its generated content there. `GET
/focus/<id>/js` answers `{"js": ...}`, a self-contained script that renders the item on the page
that loads it (`script`): the item's own `html` when it has some, else a headline, tagline and
link built from `properties.content`, styled from `properties.colors`, with a close button.

Views and clicks are counted as Mautic's `focus_stats` (types `view`, `click`): the script loads the
view pixel `/focus/<id>/viewpixel.gif` and sends its link through `/focus/<id>/click`; each, for a
published item and a person's browser (not a bot), records `focus.on_view` / `focus.on_click` on the
visitor's contact and moves the item's counters (`views`, `uniqueViews`, `clickThrough`: Mautic's
numbers), kept in sharded counter items rather than in the item, so a busy site does not write one
document on every page view.
"""

import json
import random
from collections.abc import Sequence

from chalicelib.domain.kernel import cache_keys, references, registry, service, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.resources import Hooks, Write
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.web.hits import Visit, record_for_contact
from chalicelib.store import port as store

FOCUS_TYPES = ("form", "notice", "link", "emailList")
FOCUS_STYLES = ("bar", "modal", "notification", "page")

_PLACEMENT = {
    "bar": "left:0;right:0;top:0;padding:10px 40px;text-align:center",
    "modal": "left:50%;top:20%;transform:translateX(-50%);max-width:480px;padding:24px 40px;"
    "box-shadow:0 4px 24px rgba(0,0,0,.3)",
    "notification": "right:20px;bottom:20px;max-width:320px;padding:16px 36px 16px 16px;"
    "box-shadow:0 2px 12px rgba(0,0,0,.3)",
    "page": "left:0;right:0;top:0;bottom:0;padding:15% 10%;text-align:center",
}

_TEMPLATE = """(function (d) {
  var item = %(item)s;
  if (d.getElementById(item.element)) { return; }
  var box = d.createElement('div');
  box.id = item.element;
  box.className = 'mautic-focus mautic-focus-' + item.style;
  box.setAttribute('style', item.css);
  if (item.html) {
    box.innerHTML = item.html;
  } else {
    var add = function (tag, text, css) {
      if (!text) { return null; }
      var node = d.createElement(tag);
      node.textContent = text;
      if (css) { node.setAttribute('style', css); }
      box.appendChild(node);
      return node;
    };
    add('h3', item.headline, 'margin:0 0 6px');
    add('p', item.tagline, 'margin:0 0 8px');
    var link = add('a', item.linkText, item.buttonCss);
    if (link) {
      link.href = item.linkUrl || '#';
      if (item.newWindow) { link.target = '_blank'; link.rel = 'noopener'; }
    }
  }
  var close = d.createElement('button');
  close.type = 'button';
  close.textContent = '\\u00d7';
  close.setAttribute('aria-label', 'Close');
  close.setAttribute('style', 'position:absolute;top:4px;right:8px;border:0;background:none;font-size:20px;'
    + 'cursor:pointer;color:inherit');
  close.onclick = function () { box.parentNode.removeChild(box); };
  box.appendChild(close);
  if (item.pixel) {
    var pixel = d.createElement('img');
    pixel.src = item.pixel;
    pixel.alt = '';
    pixel.setAttribute('style', 'display:none');
    box.appendChild(pixel);
  }
  var show = function () { d.body.appendChild(box); };
  if (d.body) { show(); } else { d.addEventListener('DOMContentLoaded', show); }
})(document);
"""


def _colour(value: JSON, fallback: str) -> str:
    text = str(value or "").lstrip("#")
    return f"#{text}" if text and all(c in "0123456789abcdefABCDEF" for c in text) and len(text) in (3, 6) else fallback


def _item(doc: Doc, base_url: str) -> Doc:
    """What the script needs of the item: its content, the CSS of its style, and (with `base_url`)
    the view pixel and the tracked link."""
    properties = doc.get("properties") or {}
    content = properties.get("content") or {}
    colours = properties.get("colors") or {}
    style = str(doc["style"]) if doc.get("style") in _PLACEMENT else "bar"
    background, text = _colour(colours.get("primary"), "#4e5d9d"), _colour(colours.get("text"), "#ffffff")
    button, button_text = _colour(colours.get("button"), "#fdb933"), _colour(colours.get("button_text"), "#ffffff")
    return {
        "element": f"mautic-focus-{doc['id']}",
        "style": style,
        "html": doc.get("html") or None,
        "css": f"position:fixed;z-index:2147483000;box-sizing:border-box;background:{background};"
        f"color:{text};font-family:sans-serif;{_PLACEMENT[style]}",
        "headline": content.get("headline") or doc.get("name"),
        "tagline": content.get("tagline"),
        "linkText": content.get("link_text"),
        "linkUrl": f"{base_url}/focus/{doc['id']}/click"
        if base_url and content.get("link_url")
        else content.get("link_url"),
        "pixel": f"{base_url}/focus/{doc['id']}/viewpixel.gif" if base_url else None,
        "newWindow": bool(content.get("link_new_window")),
        "buttonCss": f"display:inline-block;padding:6px 14px;background:{button};color:{button_text};"
        "text-decoration:none;border-radius:3px",
    }


def script(doc: Doc, base_url: str = "") -> str:
    """The JavaScript that renders a focus item on the page that loads it; with the service's
    `base_url`, it loads the view pixel and its link goes through the click tracker."""
    item = json.dumps(_item(doc, base_url)).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return _TEMPLATE % {"item": item}


def public_script(focus_id: str, ctx: Context) -> str:
    """Mautic's public `/focus/<id>.js`: the script of a published item, empty for one that is
    unpublished or unknown (as Mautic answers). Tracks nobody."""
    doc = _load(focus_id)
    return script(doc, ctx.base_url) if doc is not None and is_published(doc, ctx.now) else ""


# --- views and clicks --------------------------------------------------------------------------------

SHARDS = 4  # counter items per number and item: 4,000 counts a second before one throttles
STATS = ("views", "uniqueViews", "clickThrough")  # Mautic's numbers (its AJAX getViewsCount, getClickThroughCount)


def _counter(focus_id: JSON, stat: str, shard: int) -> str:
    return f"focusstat#{int(str(focus_id))}#{stat}#{shard}"


def _count(focus_id: JSON, stat: str) -> None:
    """One more on a number of the item: one UpdateItem on one of its shards, chosen at random."""
    store.add(_counter(focus_id, stat, random.randrange(SHARDS)))


def stats(focus_ids: Sequence[JSON]) -> dict[int, Doc]:
    """{id: {"views", "uniqueViews", "clickThrough"}} of focus items: one BatchGetItem per 100 counter items."""
    names = {(int(str(i)), stat): [_counter(i, stat, n) for n in range(SHARDS)] for i in focus_ids for stat in STATS}
    found = store.counters([name for shard_names in names.values() for name in shard_names]) if names else {}
    numbers: dict[int, Doc] = {int(str(i)): {} for i in focus_ids}
    for (focus_id, stat), shard_names in names.items():
        numbers[focus_id][stat] = sum(found.get(name, 0) for name in shard_names)
    return numbers


def _counts(doc: Doc | None, visit: Visit, ctx: Context) -> bool:
    """Whether a view or click of the item counts: it exists, is published, and the visitor is a
    person's browser (Mautic records a stat only for a tracked contact, which a bot is not)."""
    return doc is not None and is_published(doc, ctx.now) and visit.trackable


def _load(focus_id: str) -> Doc | None:
    try:
        return service.load(registry.resource("focus"), focus_id)
    except NotFound:
        return None


def _record(doc: Doc, kind: str, visit: Visit, ctx: Context, **details: JSON) -> Doc | None:
    """`focus.on_<kind>` on the visitor's contact (a new anonymous one for a new visitor); the contact."""
    label = doc.get("name")
    event = timeline.event(f"focus.on_{kind}", label, dict(details, focus={"id": doc["id"], "name": label}))
    return record_for_contact(visit, lambda contact: [event], ctx)


def _first_time(doc: Doc, kind: str, contact_id: int) -> bool:
    """Whether the contact's view (click) is its first of the item: one conditional PutItem (a marker)."""
    return store.claim(f"focus-{kind}#{doc['id']}#{contact_id}")


def view(focus_id: str, visit: Visit, ctx: Context) -> Doc | None:
    """The view pixel (Mautic's `viewPixelAction`): a `view` of a published item by a person, recorded
    on the visitor's contact, counted in `views` and, once per contact, `uniqueViews`. The contact, or
    None when nothing was recorded."""
    doc = _load(focus_id)
    contact = _record(doc, "view", visit, ctx, url=visit.referer) if doc and _counts(doc, visit, ctx) else None
    if doc is None or contact is None:
        return None
    _count(doc["id"], "views")
    if _first_time(doc, "view", contact["id"]):
        _count(doc["id"], "uniqueViews")
    return contact


def click(focus_id: str, visit: Visit, ctx: Context) -> tuple[str, Doc | None]:
    """The item's link followed (Mautic's click-through of a focus): (the item's `link_url`, the contact).
    A published item's click by a person is recorded on the visitor's contact and counted, once per
    contact, in `clickThrough`; NotFound when the item has no link (no open redirect: the URL is the
    item's own)."""
    doc = service.load(registry.resource("focus"), focus_id)
    url = str(((doc.get("properties") or {}).get("content") or {}).get("link_url") or "")
    if not url.startswith(("http://", "https://")):
        raise NotFound("This focus item has no link.")
    contact = _record(doc, "click", visit, ctx, url=url) if _counts(doc, visit, ctx) else None
    if contact is not None and _first_time(doc, "click", contact["id"]):
        _count(doc["id"], "clickThrough")
    return url, contact


class FocusHooks(Hooks):
    """Focus items: the form a `form` item shows must exist; an item shows its views and clicks."""

    def prefetch(self, docs: Sequence[Doc], ctx: Context) -> None:
        """The numbers of a page of items, in one read (per 100 counter items)."""
        wanted = [d["id"] for d in docs if cache_keys.focus_stats(d["id"]) not in ctx.cache]
        if wanted:
            found = stats(wanted)
            ctx.cache.update({cache_keys.focus_stats(i): found[int(i)] for i in wanted})

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        """`views`, `uniqueViews` and `clickThrough`, read-only: Mautic's focus statistics."""
        if doc.get("id") is None:
            return
        if cache_keys.focus_stats(doc["id"]) not in ctx.cache:
            self.prefetch([doc], ctx)
        out.update(ctx.cache[cache_keys.focus_stats(doc["id"])])

    def prepare(self, doc: Doc, write: Write) -> None:
        """The form a `form` item names must exist."""
        form_id = doc.get("form")
        if (
            form_id is not None
            and "form" not in write.errors
            and not references.referenced("form", [form_id], write.ctx)
        ):
            write.errors["form"] = [f"No form found with id {form_id}."]
