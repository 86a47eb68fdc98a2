"""What a form shows a known visitor (Mautic's `Field::showForContact`, `DisplayManager` and the
form template): progressive profiling hides a field whose value is known (`showWhenValueExists`
false), or until the contact submitted the form `showAfterXSubmissions` times, and shows at most the
form's `progressiveProfilingLimit` fields (`alwaysDisplay` fields first); an `isAutoFill` field with
a known value stays in the form as a hidden input carrying it. Kiosk mode shows every field."""

from collections.abc import Sequence
from dataclasses import dataclass, field

from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.web.form_fields import VIEW_ONLY


def uses_progressive_profiling(form: Doc) -> bool:
    """Mautic's `Form::usesProgressiveProfiling`: never in kiosk mode; a limit, or a field that hides
    when its value is known or until some submissions."""
    if form.get("inKioskMode"):
        return False
    if form.get("progressiveProfilingLimit"):
        return True
    return any(
        f.get("showWhenValueExists") is False or (f.get("showAfterXSubmissions") or 0) > 0
        for f in form.get("fields") or []
    )


@dataclass(eq=False, repr=False)
class Visitor:
    """What the form knows of the visitor: its contact's field values and its earlier submissions' results."""

    values: Doc = field(default_factory=dict)
    submissions: Sequence[Doc] = ()
    known: bool = False


@dataclass(eq=False, repr=False)
class Limit:
    """Mautic's DisplayManager: how many fields are shown so far, against the form's limit."""

    limit: int | None
    always_total: int
    shown: int = 0
    always_shown: int = 0

    def allows(self, item: Doc) -> bool:
        """Whether one more field fits (view-only fields always do; `alwaysDisplay` ones first)."""
        if self.limit is None or item.get("type") in VIEW_ONLY:
            return True
        if item.get("alwaysDisplay"):
            self.always_shown += 1 if self.limit > self.shown else 0
            return self.limit > self.shown
        return self.shown + (self.always_total - self.always_shown) < self.limit

    def count(self, item: Doc) -> None:
        """A field was shown."""
        self.shown += 0 if item.get("type") in VIEW_ONLY else 1


def known_value(item: Doc, visitor: Visitor) -> JSON:
    """The contact's value of the field a form field maps (contact fields only), or None."""
    if not visitor.known or (item.get("mappedObject") or "contact") != "contact" or not item.get("mappedField"):
        return None
    value = visitor.values.get(item["mappedField"])
    return None if value in (None, "", []) else value


def shown_for_contact(item: Doc, form: Doc, visitor: Visitor) -> bool:
    """Mautic's `showForContact` before the limit: the submission count and the known-value rules."""
    if form.get("inKioskMode") or item.get("alwaysDisplay"):
        return True
    after = item.get("showAfterXSubmissions") or 0
    if visitor.known and after > 0 and after > len(visitor.submissions):
        return False
    if item.get("showWhenValueExists") is False and not item.get("isAutoFill"):
        answered = any((s.get("results") or {}).get(item["alias"]) for s in visitor.submissions)
        if answered or known_value(item, visitor) is not None:
            return False
    return True


def displayed(form: Doc, fields: Sequence[Doc], visitor: Visitor) -> dict[str, bool]:
    """For each top-level field's alias: shown (True), shown as a hidden input carrying the known value
    (False, autofilled); fields left out are absent. Conditional fields follow their parent."""
    progressive = uses_progressive_profiling(form)
    visitor = Visitor() if form.get("inKioskMode") else visitor  # a kiosk serves strangers
    raw = form.get("progressiveProfilingLimit") if progressive else None
    limit = Limit(int(raw) if raw else None, sum(1 for f in fields if f.get("alwaysDisplay")))
    out: dict[str, bool] = {}
    for item in fields:
        if item.get("parent") not in (None, ""):
            continue
        if progressive and not (shown_for_contact(item, form, visitor) and limit.allows(item)):
            continue
        as_hidden = _autofilled_hidden(item, visitor)
        out[item["alias"]] = not as_hidden
        if not as_hidden:
            limit.count(item)
    return out


def _autofilled_hidden(item: Doc, visitor: Visitor) -> bool:
    """The template's rule: an autofill field hidden when its value is known renders as a hidden input."""
    return (
        item.get("showWhenValueExists") is False
        and not item.get("alwaysDisplay")
        and bool(item.get("isAutoFill"))
        and known_value(item, visitor) is not None
    )
