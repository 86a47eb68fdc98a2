"""Custom field definitions for contacts and companies, with Mautic's default fields."""

from collections.abc import Callable

from chalicelib.domain.kernel import aliases, cache_keys, cached
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import invalid
from chalicelib.domain.kernel.resources import Hooks, Write
from chalicelib.domain.kernel.types import Doc
from chalicelib.store import port as store

FIELD_TYPES = (
    "text",
    "textarea",
    "email",
    "number",
    "tel",
    "url",
    "date",
    "datetime",
    "time",
    "boolean",
    "select",
    "multiselect",
    "lookup",
    "country",
    "region",
    "locale",
    "timezone",
    "html",
)
GROUPS = ("core", "social", "personal", "professional")
OBJECT_KINDS = {"lead": "contactfield", "company": "companyfield"}

_TITLES = {"list": [{"label": t, "value": t} for t in ("Mr", "Mrs", "Miss")]}
_INDUSTRIES = (
    "Agriculture",
    "Apparel",
    "Banking",
    "Biotechnology",
    "Chemicals",
    "Communications",
    "Construction",
    "Education",
    "Electronics",
    "Energy",
    "Engineering",
    "Entertainment",
    "Environmental",
    "Finance",
    "Food & Beverage",
    "Government",
    "Healthcare",
    "Hospitality",
    "Insurance",
    "Machinery",
    "Manufacturing",
    "Media",
    "Not for Profit",
    "Recreation",
    "Retail",
    "Shipping",
    "Technology",
    "Telecommunications",
    "Transportation",
    "Utilities",
    "Other",
)

# (alias, label, type, group, extra)
FieldRow = tuple[str, str, str, str, Doc]  # (alias, label, type, group, extra)
CONTACT_DEFAULTS: tuple[FieldRow, ...] = (
    ("title", "Title", "lookup", "core", {"properties": _TITLES}),
    ("firstname", "First Name", "text", "core", {}),
    ("lastname", "Last Name", "text", "core", {}),
    ("company", "Primary company", "text", "core", {}),
    ("position", "Position", "text", "core", {}),
    ("email", "Email", "email", "core", {"isUniqueIdentifier": True}),
    ("mobile", "Mobile", "tel", "core", {}),
    ("phone", "Phone", "tel", "core", {}),
    ("points", "Points", "number", "core", {"defaultValue": "0"}),
    ("fax", "Fax", "tel", "core", {"isFixed": False}),
    ("address1", "Address Line 1", "text", "core", {}),
    ("address2", "Address Line 2", "text", "core", {}),
    ("city", "City", "text", "core", {}),
    ("state", "State", "region", "core", {}),
    ("zipcode", "Zip Code", "text", "core", {}),
    ("country", "Country", "country", "core", {}),
    ("preferred_locale", "Preferred Locale", "locale", "core", {}),
    ("timezone", "Preferred Timezone", "timezone", "core", {}),
    ("last_active", "Date Last Active", "datetime", "core", {}),
    ("attribution_date", "Attribution Date", "datetime", "core", {}),
    ("attribution", "Attribution", "number", "core", {"properties": {"scale": 2}}),
    ("website", "Website", "url", "core", {"isFixed": False}),
) + tuple(
    (alias, label, "text", "social", {"isFixed": False})
    for alias, label in (
        ("facebook", "Facebook"),
        ("foursquare", "Foursquare"),
        ("instagram", "Instagram"),
        ("linkedin", "LinkedIn"),
        ("skype", "Skype"),
        ("twitter", "Twitter"),
    )
)

COMPANY_DEFAULTS: tuple[FieldRow, ...] = (
    ("companyaddress1", "Address 1", "text", "core", {}),
    ("companyaddress2", "Address 2", "text", "core", {}),
    ("companyemail", "Company Email", "email", "core", {}),
    ("companyphone", "Phone", "tel", "core", {}),
    ("companycity", "City", "text", "core", {}),
    ("companystate", "State", "region", "core", {}),
    ("companyzipcode", "Zip Code", "text", "core", {}),
    ("companycountry", "Country", "country", "core", {}),
    ("companyname", "Company Name", "text", "core", {"isRequired": True, "isUniqueIdentifier": True}),
    ("companywebsite", "Website", "url", "core", {}),
    ("companynumber_of_employees", "Number of Employees", "number", "professional", {"properties": {"scale": 0}}),
    ("companyfax", "Fax", "tel", "professional", {}),
    ("companyannual_revenue", "Annual Revenue", "number", "professional", {"properties": {"scale": 2}}),
    (
        "companyindustry",
        "Industry",
        "select",
        "professional",
        {"properties": {"list": [{"label": i, "value": i} for i in _INDUSTRIES]}},
    ),
    ("companydescription", "Description", "text", "professional", {}),
)


LIST_MISSING = (
    "A list for the select box must be specified. Separate each option with a vertical bar. I.e. Green|Blue|Red"
)
# the properties a type cannot do without, in the order Mautic checks them (`FormFieldHelper::$types`)
REQUIRED_PROPERTIES = {
    "boolean": (("yes", "A 'positive' label is required."), ("no", "A 'negative' label is required.")),
    "select": (("list", LIST_MISSING),),
    "multiselect": (("list", LIST_MISSING),),
}


def missing_property(doc: Doc) -> str | None:
    """Mautic's message for the first property the field's type requires and lacks, or None."""
    properties = doc.get("properties") or {}
    for key, message in REQUIRED_PROPERTIES.get(str(doc.get("type")), ()):
        if not (properties.get(key) if isinstance(properties, dict) else None):
            return message
    return None


class FieldHooks(Hooks):
    """Custom field definitions: object fixed by the path, alias unique and immutable, known types."""

    def __init__(self, object_name: str) -> None:
        self.object_name = object_name

    def prepare(self, doc: Doc, write: Write) -> None:
        """The object comes from the path; type and group are known ones, alias and type are set
        once; the type's required properties are there (a boolean's yes and no labels)."""
        doc["object"] = self.object_name
        errors, existing = write.errors, write.existing
        if doc.get("type") not in FIELD_TYPES and "type" not in errors:
            errors["type"] = [f"This value should be one of: {', '.join(FIELD_TYPES)}."]
        if doc.get("group") not in GROUPS and "group" not in errors:
            errors["group"] = [f"This value should be one of: {', '.join(GROUPS)}."]
        if existing is None:
            aliases.assign(self.resource, doc, "label", separator="_")
        else:  # as Mautic's form, an edit keeps the alias and the type whatever it sends
            doc["alias"], doc["type"] = existing["alias"], existing["type"]
        message = missing_property(doc) if "properties" not in errors else None
        if message:
            errors["properties"] = [message]

    def before_delete(self, doc: Doc, ctx: Context) -> None:
        """A fixed field (Mautic's core fields) cannot be deleted."""
        if doc.get("isFixed"):
            raise invalid("alias", f"The field '{doc['alias']}' is fixed and cannot be deleted.")


def definitions(object_name: str, ctx: Context) -> list[Doc]:
    """Field definitions of an object in `order`, from the versioned in-process cache."""
    kind = OBJECT_KINDS[object_name]
    return ctx.memo(
        cache_keys.fields(kind),
        lambda: sorted(cached.documents(kind, ctx), key=lambda f: (f.get("order") or 0, f["id"])),
    )


def seed_defaults(create: Callable[[str, list[tuple[Doc, bool]]], object]) -> None:
    """Create the default fields once; `create(object, [(payload, fixed), ...])` stores an object's
    missing definitions, in order (all at once: one id block for them)."""
    if store.marked("default-fields"):
        return
    for object_name, rows in (("lead", CONTACT_DEFAULTS), ("company", COMPANY_DEFAULTS)):
        existing = {f.get("alias") for f in store.iterate(OBJECT_KINDS[object_name])}
        missing = [_default_payload(order, row) for order, row in enumerate(rows, start=1) if row[0] not in existing]
        if missing:
            create(object_name, missing)
    store.claim("default-fields")


def _default_payload(order: int, row: FieldRow) -> tuple[Doc, bool]:
    """A default field's create payload and whether it is fixed (Mautic's core fields are)."""
    alias, label, type_, group, extra = row
    payload: Doc = {
        "alias": alias,
        "label": label,
        "type": type_,
        "group": group,
        "order": order,
        "isPublished": True,
        "isListable": True,
        "isVisible": True,
    }
    payload.update(extra)
    return payload, payload.pop("isFixed", True)
