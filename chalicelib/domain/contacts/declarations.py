"""The resources of contacts: contacts, companies, their fields, notes, addresses and devices."""

from chalicelib.domain.contacts import devices
from chalicelib.domain.contacts.contacts import CompanyHooks, ContactHooks
from chalicelib.domain.contacts.custom_fields import FieldHooks
from chalicelib.domain.contacts.notes import NOTE_TYPES, NoteHooks
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource, read_only, ref

CONTACT = Resource(
    kind="contact",
    prefix="contacts",
    singular="contact",
    plural="contacts",
    routes="contacts",
    audit="A-",
    empty_list_object=True,
    total_as_text=True,  # CustomFieldRepositoryTrait's raw COUNT (testEmptyResponseReturnsJsonObject)
    permission="lead:leads",
    attrs=(
        ref("owner", "user"),
        a.datetime_("lastActive"),
        read_only(a.datetime_("dateIdentified")),
        read_only(a.array("ipAddresses")),
        read_only(a.array("tags")),
        read_only(a.array("utmtags")),
        read_only(a.array("doNotContact")),
        read_only(a.array("frequencyRules")),
        ref("stage", "stage"),
        read_only(a.text("preferredProfileImage", default="gravatar")),
        a.Attr("values", a.as_object, default={}, writable=False, hidden=True),
        a.Attr("uniqueFields", a.as_list, default=[], writable=False, hidden=True),
        a.Attr("companies", a.as_list, default=[], writable=False, hidden=True),
        a.Attr("segments", a.as_object, default={}, writable=False, hidden=True),
        a.Attr("devices", a.as_list, default=[], writable=False, hidden=True),
        a.Attr("groupScores", a.as_object, default={}, writable=False, hidden=True),
    ),
    text_columns=("firstname", "lastname", "email", "company"),
    prefix_terms=True,
    commands=frozenset({"ids", "is:mine"}),
    minimal_exclude=("ipAddresses", "utmtags", "doNotContact", "frequencyRules"),
    hooks=ContactHooks(),
)

COMPANY = Resource(
    kind="company",
    prefix="companies",
    singular="company",
    plural="companies",
    routes="contacts",
    audit="A-",
    empty_list_object=True,
    total_as_text=True,  # CustomFieldRepositoryTrait's raw COUNT (testEmptyResponseReturnsJsonObject)
    permission="lead:leads",
    attrs=(
        ref("owner", "user"),
        read_only(a.integer("score")),
        a.Attr("values", a.as_object, default={}, writable=False, hidden=True),
    ),
    text_columns=("companyname", "companyemail", "companycity"),
    commands=frozenset({"ids", "is:mine"}),
    hooks=CompanyHooks(),
)

COMPANY_FIELD, CONTACT_FIELD = (
    Resource(
        kind=kind,
        prefix=prefix,
        singular="field",
        plural="fields",
        routes="contacts",
        attrs=(
            a.text("label", required=True, max_length=191),  # LeadField's Assert\Length
            a.text("alias"),
            a.text("description"),
            a.text("type", default="text"),
            a.text("group", default="core"),
            a.integer("order"),
            read_only(a.text("object", default=obj)),
            a.text("defaultValue"),
            a.boolean("isRequired"),
            a.boolean("isPubliclyUpdatable"),
            a.boolean("isUniqueIdentifier"),
            a.obj("properties"),
            read_only(a.boolean("isFixed")),
            a.boolean("isListable", default=True),
            a.boolean("isVisible", default=True),
            a.boolean("isShortVisible", default=True),
        ),
        text_columns=("label", "alias"),
        uniques=("alias",),
        permission="lead:fields",
        hooks=FieldHooks(obj),
    )
    for kind, prefix, obj in (("companyfield", "fields/company", "company"), ("contactfield", "fields/contact", "lead"))
)

NOTE = Resource(
    kind="note",
    prefix="notes",
    singular="note",
    plural="notes",
    routes="contacts",
    audit="A-",
    keyed_list=False,
    permission="lead:leads",
    attrs=(
        a.text("text", required=True),
        a.choice("type", *NOTE_TYPES, default="general"),
        a.datetime_("dateTime"),
        a.Attr("lead", a.as_id, ref="contact", required=True),
    ),
    text_columns=("text",),
    commands=frozenset({"ids"}),
    hooks=NoteHooks(),
)

ADDRESS = Resource(
    kind="address",
    prefix="addresses",
    singular="address",
    plural="addresses",
    routes="contacts",
    audit=None,
    keyed_list=False,
    put=False,
    permission="lead:leads",
    attrs=(
        a.text("company_name"),
        a.text("address"),
        a.text("address2"),
        a.text("city"),
        a.text("state"),
        a.text("zip"),
        a.text("country"),
        a.boolean("is_default"),
    ),
    text_columns=("company_name", "address", "city"),
    commands=frozenset({"ids"}),
)

DEVICE = Resource(
    kind="device",
    prefix="devices",
    singular="device",
    plural="devices",
    routes="contacts",
    audit=None,
    keyed_list=False,
    permission="lead:leads",
    attrs=(
        a.Attr("lead", a.as_id, ref="contact"),
        a.obj("clientInfo"),
        a.text("device"),
        a.text("deviceBrand"),
        a.text("deviceModel"),
        a.text("deviceOsName"),
        a.text("deviceOsShortName"),
        a.text("deviceOsVersion"),
        a.text("deviceOsPlatform"),
        a.text("deviceFingerprint"),
        read_only(a.datetime_("dateAdded")),
    ),
    text_columns=("device", "deviceBrand", "deviceModel", "deviceOsName"),
    commands=frozenset({"ids"}),
    hooks=devices.DeviceHooks(),
    writes=devices,
)

# The resources this capability declares, registered by `domain/wiring.py`.
RESOURCES = (CONTACT, COMPANY, CONTACT_FIELD, COMPANY_FIELD, ADDRESS, NOTE, DEVICE)
