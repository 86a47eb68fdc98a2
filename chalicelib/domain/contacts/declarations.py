"""The resources of contacts: contacts, companies, their fields, notes, addresses and devices."""
from chalicelib.domain.contacts.contacts import CompanyHooks, ContactHooks
from chalicelib.domain.contacts.custom_fields import FieldHooks
from chalicelib.domain.contacts import devices
from chalicelib.domain.contacts.notes import NOTE_TYPES, NoteHooks
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource, read_only, ref


t, i, b, dt, arr, o = a.text, a.integer, a.boolean, a.datetime_, a.array, a.obj


CONTACT = Resource(
    "contact", "contacts", "contact", "contacts", audit="A-", empty_list_object=True, permission="lead:leads",
    attrs=(ref("owner", "user"), dt("lastActive"), read_only(dt("dateIdentified")),
           read_only(arr("ipAddresses")), read_only(arr("tags")), read_only(arr("utmtags")),
           read_only(arr("doNotContact")), read_only(arr("frequencyRules")), ref("stage", "stage"),
           read_only(t("preferredProfileImage", default="gravatar")),
           a.Attr("values", a.as_object, default={}, writable=False, hidden=True),
           a.Attr("uniqueFields", a.as_list, default=[], writable=False, hidden=True),
           a.Attr("companies", a.as_list, default=[], writable=False, hidden=True),
           a.Attr("segments", a.as_object, default={}, writable=False, hidden=True),
           a.Attr("devices", a.as_list, default=[], writable=False, hidden=True),
           a.Attr("groupScores", a.as_object, default={}, writable=False, hidden=True)),
    text_columns=("firstname", "lastname", "email", "company"), prefix_terms=True,
    commands=frozenset({"ids", "is:mine"}),
    minimal_exclude=("ipAddresses", "utmtags", "doNotContact", "frequencyRules"), hooks=ContactHooks())

COMPANY = Resource(
    "company", "companies", "company", "companies", audit="A-", empty_list_object=True, permission="lead:leads",
    attrs=(ref("owner", "user"), read_only(i("score")),
           a.Attr("values", a.as_object, default={}, writable=False, hidden=True)),
    text_columns=("companyname", "companyemail", "companycity"), commands=frozenset({"ids", "is:mine"}),
    hooks=CompanyHooks())

COMPANY_FIELD, CONTACT_FIELD = (Resource(
    kind, prefix, "field", "fields",
    attrs=(t("label", required=True), t("alias"), t("description"), t("type", default="text"),
           t("group", default="core"), i("order"), read_only(t("object", default=obj)), t("defaultValue"),
           b("isRequired"), b("isPubliclyUpdatable"), b("isUniqueIdentifier"), o("properties"),
           read_only(b("isFixed")), b("isListable", default=True), b("isVisible", default=True),
           b("isShortVisible", default=True)),
    text_columns=("label", "alias"), uniques=("alias",), permission="lead:fields", hooks=FieldHooks(obj))
    for kind, prefix, obj in (("companyfield", "fields/company", "company"),
                              ("contactfield", "fields/contact", "lead")))

NOTE = Resource(
    "note", "notes", "note", "notes", audit="A-", keyed_list=False, permission="lead:leads",
    attrs=(t("text", required=True), a.choice("type", *NOTE_TYPES, default="general"), dt("dateTime"),
           a.Attr("lead", a.as_id, ref="contact", required=True)),
    text_columns=("text",), commands=frozenset({"ids"}), hooks=NoteHooks())

ADDRESS = Resource(
    "address", "addresses", "address", "addresses", audit=None, keyed_list=False, put=False, permission="lead:leads",
    attrs=(t("company_name"), t("address"), t("address2"), t("city"), t("state"), t("zip"), t("country"),
           b("is_default")),
    text_columns=("company_name", "address", "city"), commands=frozenset({"ids"}))

DEVICE = Resource(
    "device", "devices", "device", "devices", audit=None, keyed_list=False, permission="lead:leads",
    attrs=(a.Attr("lead", a.as_id, ref="contact"), o("clientInfo"), t("device"), t("deviceBrand"), t("deviceModel"),
           t("deviceOsName"), t("deviceOsShortName"), t("deviceOsVersion"), t("deviceOsPlatform"),
           t("deviceFingerprint"), read_only(dt("dateAdded"))),
    text_columns=("device", "deviceBrand", "deviceModel", "deviceOsName"), commands=frozenset({"ids"}),
    hooks=devices.DeviceHooks(), writes=devices)
