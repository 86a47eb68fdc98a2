"""Choosing what a visitor is shown among A/B variants and translations, as Mautic's models do:
the variant furthest below its share of hits (PageBundle `PublicController::indexAction`), and the
translation of the first language the contact or the browser prefers (CoreBundle
`TranslationModelTrait::getTranslatedEntity`). Plain functions over ids, weights, hits and
languages, so any resource with variants or translations (pages, dynamic content) can use them."""

from collections.abc import Mapping, Sequence

from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.records import record


@record
class Candidate:
    """One variant of an A/B test: its id, its weight (percent of visitors) and its hits so far."""

    id: JSON
    weight: float
    hits: int


def weights(parent: JSON, children: Sequence[tuple[JSON, JSON]]) -> list[tuple[JSON, float]]:
    """(id, weight) of a test: the children's own weights, the parent the rest of 100 (never below 0),
    as Mautic's page view computes the parent's share."""
    given = [(child, _percent(weight)) for child, weight in children]
    return given + [(parent, max(100.0 - sum(weight for _, weight in given), 0.0))]


def _percent(value: JSON) -> float:
    """A weight as stored (a number or its text; anything else weighs 0), never below 0."""
    try:
        return max(float(str(value or 0)), 0.0)
    except ValueError:
        return 0.0


def by_deficit(candidates: Sequence[Candidate]) -> JSON:
    """The variant whose share of the hits is furthest below its weight (Mautic's `weight_deficit`);
    equal deficits go to the one with fewer hits, then to the first listed. A variant of weight 0 is
    chosen only when no variant has a weight (Mautic's sort can pick one on a tie: a variant of weight
    100 would then lose every other visitor to its parent of weight 0)."""
    weighted = [c for c in candidates if c.weight > 0] or list(candidates)
    total = sum(c.hits for c in weighted)
    order = {id(c): n for n, c in enumerate(weighted)}

    def rank(c: Candidate) -> tuple[float, int, int]:
        deficit = c.weight / 100 - (c.hits / total if total else 0)
        return (-deficit, c.hits, order[id(c)])

    return min(weighted, key=rank).id


def locale(value: str) -> str:
    """A language tag as Mautic stores locales: `fr`, `fr_CA` (`-` becomes `_`, case normalised)."""
    language, _, region = value.strip().replace("-", "_").partition("_")
    return f"{language.lower()}_{region.upper()}" if region else language.lower()


def core(value: str) -> str:
    """The language of a locale without its region (`fr_CA` -> `fr`)."""
    return locale(value).partition("_")[0]


def accepted(header: str | None) -> list[str]:
    """The locales of an `Accept-Language` header in the browser's order, weights dropped (Mautic reads
    them in order and ignores `q`), `*` and empty entries left out."""
    found = [locale(part.partition(";")[0]) for part in (header or "").split(",")]
    return [tag for tag in dict.fromkeys(found) if tag and tag != "*"]


def wanted(preferred: JSON, header: str | None = None) -> list[str]:
    """The locales a reader wants, in order: the contact's `preferred_locale`, then the browser's."""
    return ([str(preferred)] if preferred else []) + accepted(header)


def translation(languages: Mapping[JSON, str], wanted: Sequence[str]) -> JSON | None:
    """The id among `languages` ({id: locale}, the translation parent first) for the locales `wanted`
    (the contact's `preferred_locale`, then the browser's): the first exact match; else the first
    translation of the language of the first wanted locale whose language exists; None when none fits.
    Mautic's order: a later exact match wins over an earlier match of the language alone."""
    by_core: dict[str, dict[str, JSON]] = {}
    for doc_id, language in languages.items():
        by_core.setdefault(core(language), {}).setdefault(locale(language), doc_id)
    fallback: str | None = None
    for tag in (locale(w) for w in wanted if w):
        family = by_core.get(core(tag))
        if family is None:
            continue
        if tag in family:
            return family[tag]
        fallback = fallback or core(tag)
    return next(iter(by_core[fallback].values())) if fallback else None


def ab_answer(parent: Doc, published: bool, criteria: str | None, rows: Sequence[Doc], won: Sequence[JSON]) -> Doc:
    """An A/B test as `GET /<emails|pages>/{id}/abtest` answers it: the parent, its criterion (also
    Mautic's `basedOn`), the winners, and each version's row marked `isWinner`."""
    return {
        "parent": parent["id"],
        "isPublished": published,
        "variantStartDate": parent.get("variantStartDate"),
        "winnerCriteria": criteria,
        "basedOn": criteria,
        "winners": list(won),
        "variants": [dict(row, isWinner=row["id"] in won) for row in rows],
    }
