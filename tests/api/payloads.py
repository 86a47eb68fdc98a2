"""Shared helpers for the API tests: one declaration per resource prefix, minimal valid payloads.

Each `Res` says how a client sees one resource: its path prefix, JSON keys (compat 1.7, with the
spec rename campaigns -> automations), the list collection shape (compat 1.3), a minimal valid
create payload, what a PUT must resend, and the fields of its table in the spec.
"""

import re
from dataclasses import dataclass, field

AUDIT_A_MINUS = (
    "id",
    "isPublished",
    "dateAdded",
    "createdBy",
    "createdByUser",
    "dateModified",
    "modifiedBy",
    "modifiedByUser",
)
AUDIT_A = AUDIT_A_MINUS + ("publishUp", "publishDown")

ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$")
ERROR_KEYS = {"code", "message", "details", "type"}


@dataclass(frozen=True)
class Res:
    prefix: str
    singular: str
    plural: str
    keyed: bool  # list collection is an object keyed by id (else an array)
    create: dict  # minimal valid create payload, with one optional field set (`optional`)
    name: str  # a plain text field used for PATCH checks
    optional: str  # a field set on create that a PUT without it clears
    optional_default: object  # the value `optional` is cleared back to
    put_base: dict = field(default_factory=dict)  # what a PUT must resend (required fields)
    spec_fields: tuple = ()  # fields of the resource's table in the spec (besides the audit set)
    audit: tuple = AUDIT_A
    empty_list: object = ()  # shape of an empty collection ([] unless set)
    put: bool = True
    custom_values: bool = False  # values live in `fields.all` (contacts, companies)

    @property
    def base(self):
        return f"/api/{self.prefix}"

    def value(self, entity, name):
        """A field value as the client reads it."""
        if self.custom_values:
            return entity["fields"]["all"].get(name)
        return entity[name]

    def __str__(self):
        return self.prefix


RESOURCES = [
    Res(
        "contacts",
        "contact",
        "contacts",
        True,
        {"email": "ann@example.com", "firstname": "Ann", "city": "Prague"},
        name="firstname",
        optional="city",
        optional_default=None,
        put_base={"email": "ann@example.com"},
        spec_fields=(
            "owner",
            "points",
            "lastActive",
            "dateIdentified",
            "color",
            "ipAddresses",
            "fields",
            "tags",
            "utmtags",
            "doNotContact",
        ),
        audit=AUDIT_A_MINUS,
        empty_list={},
        custom_values=True,
    ),
    Res(
        "hooks",
        "hook",
        "hooks",
        True,
        {"name": "Hook", "webhookUrl": "https://example.com/hook", "description": "d"},
        name="name",
        optional="description",
        optional_default=None,
        put_base={"name": "Hook", "webhookUrl": "https://example.com/hook"},
        spec_fields=("name", "description", "webhookUrl", "secret", "eventsOrderbyDir", "category", "triggers"),
    ),
    Res(
        "automations",
        "automation",
        "automations",
        True,
        {"name": "Auto", "description": "d"},
        name="name",
        optional="description",
        optional_default=None,
        put_base={"name": "Auto"},
        spec_fields=("name", "description", "alias", "events"),
    ),
    Res(
        "forms",
        "form",
        "forms",
        False,
        {"name": "Form", "description": "d"},
        name="name",
        optional="description",
        optional_default=None,
        put_base={"name": "Form"},
        spec_fields=("name", "description", "alias", "cachedHtml", "template", "fields", "actions"),
    ),
    Res(
        "fields/contact",
        "field",
        "fields",
        True,
        {"label": "Shoe size", "type": "number", "description": "d"},
        name="label",
        optional="description",
        optional_default=None,
        put_base={"label": "Shoe size", "type": "number"},
        spec_fields=(
            "label",
            "alias",
            "description",
            "type",
            "group",
            "order",
            "object",
            "defaultValue",
            "isRequired",
            "isPubliclyUpdatable",
            "isUniqueIdentifier",
            "properties",
        ),
    ),
    Res(
        "fields/company",
        "field",
        "fields",
        True,
        {"label": "Founded", "type": "text", "description": "d"},
        name="label",
        optional="description",
        optional_default=None,
        put_base={"label": "Founded"},
        spec_fields=(
            "label",
            "alias",
            "description",
            "type",
            "group",
            "order",
            "object",
            "defaultValue",
            "isRequired",
            "isPubliclyUpdatable",
            "isUniqueIdentifier",
            "properties",
        ),
    ),
    Res(
        "addresses",
        "address",
        "addresses",
        False,
        {"address": "Main St 1", "city": "Prague"},
        name="city",
        optional="address",
        optional_default=None,
        put=False,
        spec_fields=("id", "company_name", "address", "address2", "city", "state", "zip", "country", "is_default"),
        audit=(),
    ),
    Res(
        "emails",
        "email",
        "emails",
        True,
        {"name": "Mail", "subject": "Hi"},
        name="name",
        optional="subject",
        optional_default=None,
        put_base={"name": "Mail"},
        spec_fields=(
            "name",
            "subject",
            "fromAddress",
            "fromName",
            "replyToAddress",
            "bccAddress",
            "language",
            "readCount",
            "sentCount",
            "revision",
            "customHtml",
            "plainText",
            "template",
            "emailType",
            "translationChildren",
            "translationParent",
            "variantSentCount",
            "variantReadCount",
            "variantChildren",
            "variantParent",
            "variantSettings",
            "variantStartDate",
            "category",
            "unsubscribeForm",
            "dynamicContent",
            "lists",
            "assetAttachments",
        ),
    ),
    Res(
        "segments",
        "list",
        "lists",
        True,
        {"name": "Seg", "description": "d"},
        name="name",
        optional="description",
        optional_default=None,
        put_base={"name": "Seg"},
        spec_fields=("category", "name", "alias", "description", "filters", "isGlobal"),
        audit=AUDIT_A_MINUS,
    ),
    Res(
        "dynamiccontents",
        "dynamicContent",
        "dynamicContents",
        True,
        {"name": "DC", "description": "d"},
        name="name",
        optional="description",
        optional_default=None,
        put_base={"name": "DC"},
        spec_fields=("name", "description", "variantChildren", "variantParent", "sentCount"),
    ),
    Res(
        "points/triggers",
        "trigger",
        "triggers",
        False,
        {"name": "Trig", "description": "d"},
        name="name",
        optional="description",
        optional_default=None,
        put_base={"name": "Trig"},
        spec_fields=("name", "description", "scoreId", "category", "points", "color", "events"),
    ),
    Res(
        "points",
        "point",
        "points",
        False,
        {"name": "Pt", "type": "email.open", "description": "d"},
        name="name",
        optional="description",
        optional_default=None,
        put_base={"name": "Pt", "type": "email.open"},
        spec_fields=("name", "description", "category", "type", "delta", "properties"),
    ),
    Res(
        "notifications",
        "notification",
        "notifications",
        True,
        {"name": "Note", "heading": "H"},
        name="name",
        optional="heading",
        optional_default=None,
        put_base={"name": "Note"},
        spec_fields=("name", "heading", "message", "url", "language", "readCount", "sentCount", "category"),
    ),
    Res(
        "pages",
        "page",
        "pages",
        False,
        {"title": "Page", "description": "d"},
        name="title",
        optional="description",
        optional_default=None,
        put_base={"title": "Page"},
        spec_fields=(
            "title",
            "description",
            "alias",
            "language",
            "template",
            "customHtml",
            "hits",
            "uniqueHits",
            "revision",
            "metaDescription",
            "redirectType",
            "redirectUrl",
            "translationChildren",
            "translationParent",
            "variantHits",
            "variantChildren",
            "variantParent",
            "variantSettings",
            "variantStartDate",
        ),
    ),
    Res(
        "smses",
        "sms",
        "smses",
        True,
        {"name": "Sms", "message": "m"},
        name="name",
        optional="message",
        optional_default=None,
        put_base={"name": "Sms"},
        spec_fields=("name", "message", "language", "sentCount"),
    ),
    Res(
        "companies",
        "company",
        "companies",
        True,
        {"companyname": "Acme", "companycity": "Prague"},
        name="companyname",
        optional="companycity",
        optional_default=None,
        put_base={"companyname": "Acme"},
        spec_fields=("fields",),
        audit=AUDIT_A_MINUS,
        empty_list={},
        custom_values=True,
    ),
    Res(
        "tweets",
        "tweet",
        "tweets",
        True,
        {"name": "Tw", "text": "t"},
        name="name",
        optional="text",
        optional_default=None,
        put_base={"name": "Tw"},
        spec_fields=("name", "text", "language", "category"),
    ),
    Res(
        "assets",
        "asset",
        "assets",
        False,
        {"title": "Asset", "storageLocation": "remote", "file": "https://example.com/a.pdf", "description": "d"},
        name="title",
        optional="description",
        optional_default=None,
        put_base={"title": "Asset", "storageLocation": "remote", "file": "https://example.com/a.pdf"},
        spec_fields=(
            "title",
            "description",
            "alias",
            "language",
            "downloadCount",
            "uniqueDownloadCount",
            "revision",
            "category",
            "extension",
            "mime",
            "size",
            "downloadUrl",
        ),
    ),
    Res(
        "tags",
        "tag",
        "tags",
        True,
        {"tag": "vip", "description": "d"},
        name="tag",
        optional="description",
        optional_default=None,
        put_base={"tag": "vip"},
        spec_fields=("id", "tag"),
        audit=(),
    ),
    Res(
        "categories",
        "category",
        "categories",
        False,
        {"title": "News", "bundle": "email", "description": "d"},
        name="title",
        optional="description",
        optional_default=None,
        put_base={"title": "News", "bundle": "email"},
        spec_fields=("title", "alias", "description", "color", "bundle"),
        audit=AUDIT_A_MINUS,
    ),
]

BY_PREFIX = {r.prefix: r for r in RESOURCES}

# Resources whose payload accepts `category` (a category id).
CATEGORY_PREFIXES = (
    "hooks",
    "automations",
    "forms",
    "emails",
    "segments",
    "dynamiccontents",
    "points/triggers",
    "points",
    "notifications",
    "pages",
    "smses",
    "tweets",
    "assets",
)
# ... and those where the response shows the category name instead of an object (spec: point trigger/action).
CATEGORY_AS_TITLE = ("points/triggers", "points")


def create(api, res, **overrides):
    """Create one entity of `res` (minimal payload plus overrides); returns the entity."""
    body = dict(res.create)
    body.update(overrides)
    r = api.post(f"{res.base}/new", body)
    assert r.status_code == 201, r.json
    return r.json[res.singular]


def make(api, prefix, body):
    """POST `<prefix>/new` with exactly `body`; returns the entity (asserts 201)."""
    res = BY_PREFIX[prefix]
    r = api.post(f"{res.base}/new", body)
    assert r.status_code == 201, r.json
    return r.json[res.singular]


def items(res, listing):
    """The list collection as a list of entities, in response order."""
    collection = listing[res.plural]
    return list(collection.values()) if isinstance(collection, dict) else list(collection)


def ids(res, listing):
    return [e["id"] for e in items(res, listing)]


def assert_error(r, status, field=None, message=None):
    """An error response: status, `{"errors": [{code, message, details, type}]}`, optionally naming a field."""
    assert r.status_code == status, (r.status_code, r.json)
    assert set(r.json) == {"errors"}, r.json
    assert isinstance(r.json["errors"], list) and len(r.json["errors"]) == 1
    error = r.json["errors"][0]
    assert ERROR_KEYS <= set(error), error
    assert error["code"] == status
    assert isinstance(error["message"], str) and error["message"]
    if message is not None:
        assert error["message"] == message
    if field is not None:
        assert field in error["message"], error
        assert isinstance(error["details"], dict) and field in error["details"], error
        assert isinstance(error["details"][field], list) and error["details"][field]
        assert all(isinstance(m, str) and m for m in error["details"][field])
    return error
