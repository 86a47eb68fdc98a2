"""Which version of an email a contact gets: its A/B variant, then that variant's translation for
the contact's locale, as Mautic's `EmailModel::sendEmail` / `getEmailSettings` choose.

Every send path calls `choose(email, contact, ctx)` per recipient (single sends, segment batches,
automations, form actions). The email's versions (its published variant children and each one's
published translations) are read once per context (`load`, memoised on `ctx`): a segment batch or
an automation run reads them once, not per message. The variant pick (`pick_variant`, which dynamic
content uses too) reads nothing; the translation is `kernel/variants.translation`, as for pages.

Variants: the parent takes `100 - sum(children's variantSettings.weight)` percent, each published
child its weight (docs/email.md). Mautic shuffles each batch and fills the variants by their weight
deficit; here a contact's share is a hash of the parent's id and the contact's id, so a retried
batch or a message SQS delivers twice gives the contact the same version.
"""

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import variants
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import Doc
from chalicelib.store import port as store

BUCKETS = 10_000  # a contact's share of 100 %, in hundredths of a percent


@dataclass(eq=False, repr=False)
class Versions:
    """An email's A/B test and translations as a send sees them."""

    parent: Doc
    variants: list[tuple[Doc, float]] = field(default_factory=list)  # (published child, weight in %)
    translations: dict[int, list[Doc]] = field(default_factory=dict)  # version id -> published translations

    @property
    def is_test(self) -> bool:
        """Whether the email is split between variants (Mautic's `isVariant`, published children)."""
        return bool(self.variants)


@dataclass(eq=False, repr=False)
class Version:
    """The email a contact gets (`doc`) and, when the email is an A/B test, the variant picked
    (`variant`, the parent or a child: the test's counts go to it, whichever translation is sent)."""

    doc: Doc
    variant: int | None = None


def weight(doc: Doc) -> float:
    """A variant child's `variantSettings.weight` in percent (0 when missing or not a finite number)."""
    settings = doc.get("variantSettings")
    raw = settings.get("weight") if isinstance(settings, dict) else None
    try:
        number = float(raw) if raw not in (None, "") else 0.0
    except (TypeError, ValueError):
        return 0.0
    return max(0.0, number) if math.isfinite(number) else 0.0


def bucket(parent_id: int, contact_id: int) -> float:
    """The contact's fixed place in [0, 100) for the parent's test."""
    digest = hashlib.sha256(f"abtest:{int(parent_id)}:{int(contact_id)}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % BUCKETS * 100 / BUCKETS


def pick_variant(parent_id: int, children: Sequence[tuple[int, float]], contact_id: int) -> int:
    """The id of the version the contact gets: the parent keeps what the children's weights leave
    (nothing when they reach 100 %: then the children share in proportion to their weights)."""
    total = sum(w for _, w in children)
    shares = [(parent_id, max(0.0, 100 - total))] + list(children)
    scale = 100 / max(total, 100) if total > 0 else 1
    place, edge = bucket(parent_id, contact_id), 0.0
    for version_id, share in shares:
        edge += share * (scale if version_id != parent_id else 1)
        if place < edge:
            return version_id
    return parent_id


def _ids(doc: Doc, name: str) -> list[int]:
    return sorted(i for i in a.ids_in(doc.get(name)) if isinstance(i, int) and i != doc.get("id"))


def _published(docs: dict[int, Doc], ids: Sequence[int], now: str) -> list[Doc]:
    return [docs[i] for i in ids if i in docs and is_published(docs[i], now)]


def load(email: Doc, ctx: Context) -> Versions:
    """The email's published variant children and each version's published translations: at most two
    BatchGetItems (none for an email without children), once per context and email revision."""
    key = ("email-versions", email["id"], email.get("_rev"))
    return ctx.memo(key, lambda: _read(email, ctx.now))


def _read(email: Doc, now: str) -> Versions:
    children = _ids(email, "variantChildren") if not email.get("variantParent") else []
    found = store.batch_get("email", children) if children else {}
    variants = [(doc, weight(doc)) for doc in _published(found, children, now)]
    versions = [email] + [doc for doc, _ in variants]
    wanted = {doc["id"]: _ids(doc, "translationChildren") for doc in versions}
    ids = sorted({i for group in wanted.values() for i in group})
    docs = store.batch_get("email", ids) if ids else {}
    return Versions(email, variants, {vid: _published(docs, group, now) for vid, group in wanted.items()})


def choose(email: Doc, contact: Doc, ctx: Context) -> Version:
    """The version of `email` the contact gets (its variant, then that variant's translation)."""
    versions = load(email, ctx)
    doc, variant = email, None
    if versions.is_test:
        variant = pick_variant(email["id"], [(d["id"], w) for d, w in versions.variants], contact["id"])
        doc = next((d for d, _ in versions.variants if d["id"] == variant), email)
    translations = versions.translations.get(doc["id"]) or []
    languages = {d["id"]: str(d.get("language") or "") for d in [doc, *translations]}
    chosen = variants.translation(languages, variants.wanted((contact.get("values") or {}).get("preferred_locale")))
    translated = next((t for t in translations if t["id"] == chosen), doc)
    return Version(translated, variant)
