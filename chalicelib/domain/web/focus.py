"""Focus items (Mautic's Focus plugin): a bar, modal, notification or full page shown on a website to
collect data with a form, show a notice or emphasise a link.

`form` holds the id of the form a `form` item shows (checked on write, shown as the id, as Mautic's
serializer does). `cache` is read-only: Mautic keeps its generated content there. `GET
/focus/<id>/js` answers `{"js": ...}`, a self-contained script that renders the item on the page
that loads it (`script`): the item's own `html` when it has some, else a headline, tagline and
link built from `properties.content`, styled from `properties.colors`, with a close button.
"""

import json

from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.resources import Hooks, Write
from chalicelib.domain.kernel.types import JSON, Doc

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
  var show = function () { d.body.appendChild(box); };
  if (d.body) { show(); } else { d.addEventListener('DOMContentLoaded', show); }
})(document);
"""


def _colour(value: JSON, fallback: str) -> str:
    text = str(value or "").lstrip("#")
    return f"#{text}" if text and all(c in "0123456789abcdefABCDEF" for c in text) and len(text) in (3, 6) else fallback


def _item(doc: Doc) -> Doc:
    """What the script needs of the item: its content and the CSS of its style."""
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
        "linkUrl": content.get("link_url"),
        "newWindow": bool(content.get("link_new_window")),
        "buttonCss": f"display:inline-block;padding:6px 14px;background:{button};color:{button_text};"
        "text-decoration:none;border-radius:3px",
    }


def script(doc: Doc) -> str:
    """The JavaScript that renders a focus item on the page that loads it."""
    item = json.dumps(_item(doc)).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return _TEMPLATE % {"item": item}


class FocusHooks(Hooks):
    """Focus items: the form a `form` item shows must exist."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """The form a `form` item names must exist."""
        form_id = doc.get("form")
        if form_id is not None and "form" not in write.errors and not service.referenced("form", [form_id], write.ctx):
            write.errors["form"] = [f"No form found with id {form_id}."]
