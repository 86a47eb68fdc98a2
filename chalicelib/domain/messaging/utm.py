"""UTM tags on the links of an email, as Mautic's `RedirectModel::generateRedirectUrl` adds an
email's `utmTags` to each tracked link: `utmSource` becomes `utm_source` (and so on), appended
after the link's own query (kept as it is) and before its `#fragment` (`UrlHelper::appendQueryToUrl`).
Pure: reads nothing."""

from urllib.parse import urlencode

from chalicelib.domain.kernel.types import JSON

NAMES = ("utmSource", "utmMedium", "utmCampaign", "utmContent")


def query(tags: JSON) -> str:
    """`utm_source=...&utm_medium=...` of an email's `utmTags`; empty tags are left out."""
    if not isinstance(tags, dict):
        return ""
    pairs = [
        ("utm_" + name[3:].lower(), str(tags[name]).strip())
        for name in NAMES
        if tags.get(name) not in (None, "") and str(tags[name]).strip()
    ]
    return urlencode(pairs)


def tagged(url: str, tags: JSON) -> str:
    """The URL with the UTM query appended (its own query and fragment kept)."""
    extra = query(tags)
    if not extra:
        return url
    base, hash_mark, fragment = url.partition("#")
    joiner = "&" if "?" in base else "?"
    if base.endswith(("?", "&")):
        joiner = ""
    return f"{base}{joiner}{extra}{hash_mark}{fragment}"
