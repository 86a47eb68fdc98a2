"""Choosing a translation for a reader, as Mautic's TranslationModelTrait::getTranslatedEntity does: the
contact's preferred locale first, then the browser's `Accept-Language` in the order sent; a dialect
(`fr_CA`) that no translation has falls back to the first translation of its core language (`fr`).

Mautic cuts a weight off as `fr;` and keeps the space after a comma, so only a list's first language
matches there; here weights and spaces are removed, so every language listed counts, in its order.
"""

from collections.abc import Sequence

from chalicelib.domain.kernel.types import JSON, Doc


def accept_languages(header: JSON) -> list[str]:
    """The languages of an `Accept-Language` header in the order sent, `-` written `_`."""
    found = []
    for part in str(header or "").split(","):
        language = part.split(";", 1)[0].strip().replace("-", "_")
        if language and language != "*" and language not in found:
            found.append(language)
    return found


def wanted(contact: Doc | None, header: JSON = None) -> list[str]:
    """The contact's `preferred_locale`, then the browser's languages."""
    preferred = str(((contact or {}).get("values") or {}).get("preferred_locale") or "").strip()
    return ([preferred] if preferred else []) + [lang for lang in accept_languages(header) if lang != preferred]


def _core(language: str) -> str:
    return language[:2] if "_" in language else language


def translation(family: Sequence[Doc], languages: Sequence[str]) -> Doc:
    """The member of a translation family (its parent first) for the `languages` wanted: an exact
    language, else the first member of the first wanted core language, else the parent."""
    by_core: dict[str, dict[str, Doc]] = {}
    for member in family:
        language = str(member.get("language") or "")
        by_core.setdefault(_core(language), {}).setdefault(language, member)
    fallback = None
    for language in languages:
        members = by_core.get(_core(language))
        if members and language in members:
            return members[language]
        if members and fallback is None:
            fallback = next(iter(members.values()))
    return fallback or family[0]
