"""Rendering an email or text message for one contact: Mautic's tokens (compat 13.3) in the subject,
the HTML and the plain text, plus the `tokens` given to a send.

Plain token substitution, one pass over the template (a value that looks like a token is never
expanded again) and no evaluation of any kind. Values landing in HTML are HTML-escaped; the
`tokens` of an API send, dynamic content and the owner's signature are HTML by design and inserted
as given (they come from authenticated users, not from contacts), except `Text` values (a form's
answers), escaped like field values. Everything the renderer needs from outside (links, dynamic
content) arrives through `Sources`, so this module reads nothing.
"""

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from html import escape, unescape
from urllib.parse import quote, unquote, urlsplit

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.types import JSON, Doc

TOKEN = r"(?i)(\{|%7B)([^{}\r\n]{1,250}?)(\}|%7D)"
LINK = r"(?i)(<a\b[^>]*?\bhref\s*=\s*)([\"'])(https?://[^\"'\s]+)\2"
FORMATS = {"date": "F j, Y", "time": "g:i a", "datetime": "F j, Y g:i a"}
PHP_DATE = {
    "Y": "%Y",
    "y": "%y",
    "m": "%m",
    "n": "{n}",
    "d": "%d",
    "j": "{j}",
    "F": "%B",
    "M": "%b",
    "D": "%a",
    "l": "%A",
    "H": "%H",
    "G": "{G}",
    "h": "%I",
    "g": "{g}",
    "i": "%M",
    "s": "%S",
    "a": "{a}",
    "A": "%p",
}
UNSUBSCRIBE_TEXT = '<a href="{url}">Unsubscribe</a> to no longer receive emails from us.'
WEBVIEW_TEXT = '<a href="{url}">Having trouble reading this email? Click here.</a>'
PIXEL = '<img height="1" width="1" src="{url}" alt="" />'
Piece = tuple[str, bool]  # a token's text for one part, and whether it is already markup


@dataclass(eq=False, repr=False)
class Links:
    """Per-recipient URLs and look-ups the tokens need; callables answer None when nothing fits."""

    unsubscribe: str = ""
    webview: str = ""
    pixel: str = ""
    asset: Callable[[int], str | None] = lambda asset_id: None
    page: Callable[[int], str | None] = lambda page_id: None
    dwc: Callable[[str], str | None] = lambda slot: None
    dynamic: Callable[[str], str] = lambda name: ""  # the email's own `dynamicContent` slot for the contact


@dataclass(eq=False, repr=False)
class Sources:
    """What a template is rendered with: the contact's field values, its primary company's, its owner
    (a user document), the tokens given to the send, the links, the time and the rendered subject."""

    contact: Doc = field(default_factory=dict)
    company: Doc = field(default_factory=dict)
    owner: Doc = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    links: Links = field(default_factory=Links)
    now: datetime = field(default_factory=clock.now)
    subject: str = ""


@dataclass(eq=False, repr=False)
class Rendered:
    """A message ready to send, and the token values used (reported with the send)."""

    subject: str
    html: str
    text: str
    tokens: dict[str, str]


def php_date(moment: datetime, fmt: str) -> str:
    """A datetime in a PHP `date()` format (the letters Mautic's formats use)."""
    values = {
        "n": str(moment.month),
        "j": str(moment.day),
        "G": str(moment.hour),
        "g": str(moment.hour % 12 or 12),
        "a": "am" if moment.hour < 12 else "pm",
    }
    out = []
    for char in fmt:
        code = PHP_DATE.get(char)
        if code is None:
            out.append(char.replace("%", "%%"))
        elif code.startswith("{"):
            out.append(values[code[1:-1]])
        else:
            out.append(code)
    return moment.strftime("".join(out))


def _formatted(value: JSON, modifier: str) -> str:
    try:
        return php_date(clock.parse(str(value)), FORMATS[modifier])
    except (ValueError, OverflowError):
        return str(value)


class Text(str):
    """A token value that is plain text, not markup (a visitor's form answer): HTML-escaped where it
    lands in HTML, as any contact field value."""


def _text(value: JSON) -> str:
    if isinstance(value, Text):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def normalise_tokens(tokens: JSON) -> dict[str, str]:
    """The `tokens` of a send keyed by token text with braces (`name` and `{name}` both accepted)."""
    if not isinstance(tokens, dict):
        return {}
    return {(key if str(key).startswith("{") else "{%s}" % key): _text(value) for key, value in tokens.items()}


class _Renderer:
    """Resolves the tokens of one part (subject, HTML or text) for one recipient."""

    def __init__(self, sources: Sources, html: bool, nested: bool = False) -> None:
        self.sources, self.html, self.nested = sources, html, nested
        self.used: dict[str, str] = {}

    def substitute(self, template: str | None) -> str:
        return re.sub(TOKEN, self._replace, template or "")

    def _replace(self, match: re.Match[str]) -> str:
        encoded = match.group(1) != "{"
        inner = unquote(match.group(2)) if encoded else match.group(2)
        value = self.resolve(inner)
        if value is None:
            return match.group(0)
        self.used["{%s}" % inner] = value[0] if not self.html or value[1] else unescape(value[0])
        return quote(unescape(value[0]) if self.html else value[0], safe="") if encoded else value[0]

    def resolve(self, inner: str) -> Piece | None:
        """(text for this part, whether it is already markup) for a token, or None if unknown."""
        custom = self.sources.tokens.get("{%s}" % inner)
        if isinstance(custom, Text):
            return self._plain(custom)
        if custom is not None:
            return custom, True
        if "=" in inner:
            name, _, rest = inner.partition("=")
            argument, _, modifier = rest.partition("|")
        else:
            name, _, modifier = inner.partition("|")
            argument = ""
        method = getattr(self, "token_" + name.strip().lower(), None) if name.strip().isidentifier() else None
        return method(argument.strip(), modifier.strip()) if method else None

    def _plain(self, value: str) -> Piece:
        return (escape(value), False) if self.html else (value, False)

    def _markup(self, html: str, text: str) -> Piece:
        return (html, True) if self.html else (text, False)

    def _field(
        self, values: Mapping[str, JSON], argument: str, modifier: str, fallback: Mapping[str, JSON] | None = None
    ) -> Piece:
        alias = argument.lower()
        value = values.get(alias)
        if value in (None, "") and fallback is not None:
            value = fallback.get(alias)
        if value in (None, ""):
            return self._plain("" if modifier in ("true", *FORMATS) else modifier)
        if modifier == "true":
            return self._plain(quote(_text(value), safe=""))
        if modifier in FORMATS:
            return self._plain(_formatted(value, modifier))
        return self._plain(_text(value))

    def token_contactfield(self, argument: str, modifier: str) -> Piece:
        return self._field(self.sources.contact, argument, modifier, self.sources.company)

    def token_leadfield(self, argument: str, modifier: str) -> Piece:
        return self.token_contactfield(argument, modifier)

    def token_ownerfield(self, argument: str, modifier: str) -> Piece:
        owner = {str(k).lower(): v for k, v in (self.sources.owner or {}).items()}
        return self._field(owner, argument, modifier)

    def token_unsubscribe_url(self, argument: str, modifier: str) -> Piece:
        return self._plain(self.sources.links.unsubscribe)

    token_dnc_url = token_unsubscribe_url

    def token_unsubscribe_text(self, argument: str, modifier: str) -> Piece:
        url = self.sources.links.unsubscribe
        return self._markup(
            UNSUBSCRIBE_TEXT.format(url=escape(url)), f"Unsubscribe to no longer receive emails from us: {url}"
        )

    def token_webview_url(self, argument: str, modifier: str) -> Piece:
        return self._plain(self.sources.links.webview)

    def token_webview_text(self, argument: str, modifier: str) -> Piece:
        url = self.sources.links.webview
        return self._markup(WEBVIEW_TEXT.format(url=escape(url)), f"View this email in your browser: {url}")

    def token_tracking_pixel(self, argument: str, modifier: str) -> Piece:
        return self._markup(PIXEL.format(url=escape(self.sources.links.pixel)), "")

    def token_signature(self, argument: str, modifier: str) -> Piece:
        signature = str((self.sources.owner or {}).get("signature") or "")
        return self._markup(signature, html_to_text(signature))

    def token_subject(self, argument: str, modifier: str) -> Piece:
        return self._plain(self.sources.subject)

    def token_today(self, argument: str, modifier: str) -> Piece:
        return self._plain(php_date(self.sources.now, FORMATS.get(modifier or "date", modifier)))

    def token_assetlink(self, argument: str, modifier: str) -> Piece:
        return self._link(self.sources.links.asset, argument)

    def token_pagelink(self, argument: str, modifier: str) -> Piece:
        return self._link(self.sources.links.page, argument)

    def _link(self, find: Callable[[int], str | None], argument: str) -> Piece:
        return self._plain(find(int(argument)) or "" if a.digits(argument) else "")

    def token_dwc(self, argument: str, modifier: str) -> Piece:
        content = self.sources.links.dwc(argument) or ""
        return self._markup(content, html_to_text(content))

    def token_dynamiccontent(self, argument: str, modifier: str) -> Piece:
        """`{dynamiccontent="name"}`: the slot's content for the contact, its own tokens rendered (a
        slot inside a slot renders empty, as Mautic stops the recursion); an unknown slot is empty."""
        name = unescape(argument).strip().strip("\"'")
        content = "" if self.nested else self.sources.links.dynamic(name)
        html = _Renderer(self.sources, html=True, nested=True).substitute(content)
        return self._markup(html, html_to_text(html))


def render_text(template: str | None, sources: Sources, html: bool = False) -> tuple[str, dict[str, str]]:
    """(rendered template, {token: value used})."""
    renderer = _Renderer(sources, html)
    return renderer.substitute(template), renderer.used


def stored_hosts(template: str | None) -> set[str]:
    """The hosts of the literal http(s) links of stored content (a host made by a token is none)."""
    hosts = {urlsplit(unescape(match.group(3))).netloc.lower() for match in re.finditer(LINK, template or "")}
    return {host for host in hosts if host and "{" not in host}


def track_links(
    html: str, track: Callable[[str], str], keep: Collection[str] = (), hosts: Collection[str] | None = None
) -> str:
    """HTML with each http(s) link passed through `track(url)` (the click redirect), except the URLs
    in `keep`, links marked `mautic:disable-tracking` and, when `hosts` is given, links to any other
    host: a link a contact field made (`{contactfield=website}`) stays as it is, never signed, so the
    click redirect cannot send anyone where the stored content does not."""

    def replace(match: re.Match[str]) -> str:
        url = unescape(match.group(3))
        tag_end = html.find(">", match.end())
        if url in keep or "mautic:disable-tracking" in html[match.start() : tag_end]:
            return match.group(0)
        if hosts is not None and urlsplit(url).netloc.lower() not in hosts:
            return match.group(0)
        return f"{match.group(1)}{match.group(2)}{escape(track(url))}{match.group(2)}"

    return re.sub(LINK, replace, html)


def html_to_text(html: str | None) -> str:
    """A readable plain-text version of HTML: links as `text (url)`, blocks on their own lines."""
    text = re.sub(r"(?is)<(script|style|head)\b.*?</\1>", "", html or "")
    text = re.sub(
        r"(?is)<a\b[^>]*href\s*=\s*[\"']([^\"']+)[\"'][^>]*>(.*?)</a>",
        lambda m: f"{m.group(2)} ({m.group(1)})" if m.group(1) != re.sub("<[^>]+>", "", m.group(2)) else m.group(1),
        text,
    )
    text = re.sub(r"(?i)<br\s*/?>", "\n", text)
    text = re.sub(r"(?i)</(p|div|h[1-6]|li|tr|table)>", "\n", text)
    text = unescape(re.sub(r"<[^>]+>", "", text))
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _with_pixel(html: str, pixel_url: str) -> str:
    """The HTML with the open-tracking pixel appended (before `</body>`) unless the template places it."""
    if not pixel_url or pixel_url in html:
        return html
    tag = PIXEL.format(url=escape(pixel_url))
    index = html.lower().rfind("</body>")
    return html[:index] + tag + html[index:] if index >= 0 else html + tag


def render_email(email: Mapping[str, JSON], sources: Sources, track: Callable[[str], str] | None = None) -> Rendered:
    """Subject, HTML and plain text of an email document for one recipient. `track(url)` (optional)
    rewrites links for click tracking; the pixel is appended to the HTML."""
    subject, used = render_text(email.get("subject") or "", sources)
    sources.subject = subject
    html, used_html = render_text(email.get("customHtml") or "", sources, html=True)
    text_template = email.get("plainText") or ""
    text, used_text = render_text(text_template, sources) if text_template else (html_to_text(html), {})
    if html and track:
        html = track_links(
            html,
            track,
            keep={sources.links.unsubscribe, sources.links.webview},
            hosts=stored_hosts(email.get("customHtml")),
        )
    if html:
        html = _with_pixel(html, sources.links.pixel)
    return Rendered(subject, html, text, {**used_text, **used_html, **used})


def render_sms(message: str | None, sources: Sources) -> str:
    """A text message's content for one recipient (no HTML)."""
    return render_text(message or "", sources)[0]
