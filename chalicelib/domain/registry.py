"""The registry: every resource of the API declared once (prefix, keys, attributes, behaviour).

The standard routes, storage kinds and list behaviour are all driven from these declarations;
what is special about a resource lives in the hooks module named next to it.
"""
from dataclasses import replace

from chalicelib.domain import attributes as a
from chalicelib.domain.aliases import AliasHooks
from chalicelib.domain.assets import AssetHooks
from chalicelib.domain.automations import AutomationHooks, as_ref, as_refs
from chalicelib.domain.catalog import TRIGGER_EVENT_TYPES
from chalicelib.domain.contacts import CompanyHooks, ContactHooks
from chalicelib.domain.customfields import FieldHooks
from chalicelib.domain.emailhooks import EmailHooks, MessageHooks
from chalicelib.domain.forms import FormHooks
from chalicelib.domain.notes import NOTE_TYPES, NoteHooks
from chalicelib.domain.points import PointActionHooks, TriggerHooks
from chalicelib.domain.resources import CONTENT_COMMANDS, CORE_COMMANDS, Resource
from chalicelib.domain.segments import SegmentHooks
from chalicelib.domain.webhooks import WebhookHooks

t, i, b, dt, arr, o = a.text, a.integer, a.boolean, a.datetime_, a.array, a.obj


def _ref(name, kind, **kw):
    return a.Attr(name, a.as_id, ref=kind, **kw)


def _refs(name, kind):
    return a.Attr(name, a.id_list, default=[], ref=kind)


def _read_only(attr):
    return replace(attr, writable=False)


def _content(*extra):
    return (t("language", default="en"),) + extra


CONTACT = Resource(
    "contact", "contacts", "contact", "contacts", audit="A-", empty_list_object=True,
    attrs=(_ref("owner", "user"), dt("lastActive"), _read_only(dt("dateIdentified")),
           _read_only(arr("ipAddresses")), _read_only(arr("tags")), _read_only(arr("utmtags")),
           _read_only(arr("doNotContact")), _read_only(arr("frequencyRules")), _read_only(t("stage")),
           _read_only(t("preferredProfileImage", default="gravatar")),
           a.Attr("values", a.as_object, default={}, writable=False, hidden=True),
           a.Attr("uniqueFields", a.as_list, default=[], writable=False, hidden=True),
           a.Attr("companies", a.as_list, default=[], writable=False, hidden=True),
           a.Attr("segments", a.as_object, default={}, writable=False, hidden=True),
           a.Attr("devices", a.as_list, default=[], writable=False, hidden=True)),
    text_columns=("firstname", "lastname", "email", "company"), prefix_terms=True,
    commands=frozenset({"ids", "is:mine"}),
    minimal_exclude=("ipAddresses", "utmtags", "doNotContact", "frequencyRules"), hooks=ContactHooks())

COMPANY = Resource(
    "company", "companies", "company", "companies", audit="A-", empty_list_object=True,
    attrs=(_ref("owner", "user"), _read_only(i("score")),
           a.Attr("values", a.as_object, default={}, writable=False, hidden=True)),
    text_columns=("companyname", "companyemail", "companycity"), commands=frozenset({"ids", "is:mine"}),
    hooks=CompanyHooks())

SEGMENT = Resource(
    "segment", "segments", "list", "lists", audit="A-", category="object",
    attrs=(t("name", required=True), t("alias"), t("publicName"), t("description"), arr("filters"),
           b("isGlobal", default=True), b("isPreferenceCenter")),
    uniques=("alias",), hooks=SegmentHooks())

EVENT_ATTRS = (
    t("name"), t("description"), t("type", required=True),
    a.choice("eventType", "action", "decision", "condition", required=True), i("order"), o("properties"),
    a.choice("triggerMode", "immediate", "interval", "date", default="immediate"), dt("triggerDate"),
    a.Attr("triggerInterval", a.as_int), a.choice("triggerIntervalUnit", "i", "h", "d", "m", "y", default="d"),
    t("triggerHour"), t("triggerRestrictedStartHour"), t("triggerRestrictedStopHour"),
    arr("triggerRestrictedDaysOfWeek"), a.choice("decisionPath", "yes", "no"), t("channel"),
    a.Attr("channelId", a.as_int), a.Attr("parent", as_ref), a.Attr("children", as_refs, default=[]))

AUTOMATION = Resource(
    "automation", "automations", "automation", "automations", category="object",
    attrs=(t("name", required=True), t("description"), t("alias"), _refs("lists", "segment"),
           _refs("forms", "form"), o("canvasSettings"), b("allowRestart"), b("removeOnSegmentExit", default=True)),
    nested=(a.Nested("events", "automationevent", EVENT_ATTRS),),
    minimal_exclude=("events", "canvasSettings"), uniques=("alias",), hooks=AutomationHooks())

FORM_FIELD_TYPES = ("text", "textarea", "email", "tel", "url", "number", "date", "datetime", "country",
                    "select", "radiogrp", "checkboxgrp", "hidden", "password", "file", "captcha", "freetext",
                    "freehtml", "pagebreak", "button", "companyLookup", "plugin.loginSocial")

FORM_FIELD_ATTRS = (
    t("label", required=True), b("showLabel", default=True), t("alias"),
    a.choice("type", *FORM_FIELD_TYPES, required=True), t("defaultValue"), b("isRequired"),
    t("validationMessage"), t("helpMessage"), i("order"), o("properties"), o("validation"),
    a.Attr("parent", a.as_int), o("conditions"), t("labelAttributes"), t("inputAttributes"),
    t("containerAttributes"), t("leadField"), b("saveResult", default=True), b("isAutoFill"),
    a.choice("mappedObject", "contact", "company"), t("mappedField"))

FORM_ACTION_ATTRS = (t("name"), t("description"), t("type", required=True), i("order"), o("properties"))

FORM = Resource(
    "form", "forms", "form", "forms", keyed_list=False, category="object",
    attrs=(t("name", required=True), t("description"), t("alias"), _read_only(t("cachedHtml", default="")),
           t("template"), b("inKioskMode"), b("renderStyle", default=True),
           a.choice("formType", "standalone", "campaign", default="standalone"),
           a.choice("postAction", "return", "redirect", "message", default="message"),
           t("postActionProperty"), b("noIndex"), t("formAttributes"), t("language")),
    nested=(a.Nested("fields", "formfield", FORM_FIELD_ATTRS), a.Nested("actions", "formaction", FORM_ACTION_ATTRS)),
    commands=CORE_COMMANDS | {"name", "has:results"}, minimal_exclude=("cachedHtml", "fields", "actions"),
    uniques=("alias",), hooks=FormHooks())

EMAIL = Resource(
    "email", "emails", "email", "emails", category="object",
    attrs=(t("name", required=True), t("subject"), t("fromAddress"), t("fromName"), t("replyToAddress"),
           t("bccAddress"), b("useOwnerAsMailer"), t("preheaderText")) + _content(
        i("readCount"), i("sentCount"), i("revision", default=1), t("customHtml"), t("plainText"), t("template"),
        a.choice("emailType", "template", "list", default="template"), _read_only(arr("translationChildren")),
        _ref("translationParent", "email"), i("variantSentCount"), i("variantReadCount"),
        _read_only(arr("variantChildren")), _ref("variantParent", "email"), arr("variantSettings"),
        dt("variantStartDate"), _ref("unsubscribeForm", "form"), arr("dynamicContent"), _refs("lists", "segment"),
        _refs("assetAttachments", "asset"), o("utmTags"), o("headers"), b("publicPreview", default=True)),
    text_columns=("name", "subject"), commands=CONTENT_COMMANDS,
    minimal_exclude=("customHtml", "plainText", "dynamicContent", "variantSettings", "headers"), hooks=EmailHooks())

DYNAMIC_CONTENT = Resource(
    "dynamiccontent", "dynamiccontents", "dynamicContent", "dynamicContents", category="object",
    attrs=(t("name", required=True), t("description"), t("content"), i("sentCount"),
           _read_only(arr("variantChildren")), _ref("variantParent", "dynamiccontent"),
           _ref("translationParent", "dynamiccontent"), b("isCampaignBased", default=True), t("slotName"),
           arr("filters"), o("utmTags")) + _content(),
    commands=CONTENT_COMMANDS, minimal_exclude=("content",))

TRIGGER = Resource(
    "trigger", "points/triggers", "trigger", "triggers", keyed_list=False, category="title",
    attrs=(t("name", required=True), t("description"), a.Attr("scoreId", a.as_int), i("points"), t("color"),
           b("triggerExistingLeads")),
    nested=(a.Nested("events", "triggerevent", (a.choice("type", *TRIGGER_EVENT_TYPES, required=True), t("name"),
                                                t("description"), i("order"), o("properties"))),),
    commands=frozenset({"ids"}), minimal_exclude=("events",), hooks=TriggerHooks())

POINT = Resource(
    "point", "points", "point", "points", keyed_list=False, category="title",
    attrs=(t("name", required=True), t("description"), t("type", required=True), i("delta"), o("properties"),
           b("repeatable")),
    commands=frozenset({"ids"}), hooks=PointActionHooks())

NOTIFICATION = Resource(
    "notification", "notifications", "notification", "notifications", category="object",
    attrs=(t("name", required=True), t("heading"), t("message"), t("url"), t("button"), b("mobile"))
    + _content(i("readCount"), i("sentCount")),
    commands=CONTENT_COMMANDS)

PAGE = Resource(
    "page", "pages", "page", "pages", keyed_list=False, category="object",
    attrs=(t("title", required=True), t("description"), t("alias")) + _content(
        t("template"), t("customHtml"), _read_only(i("hits")), _read_only(i("uniqueHits")),
        _read_only(i("revision", default=1)), t("metaDescription"), a.Attr("redirectType", a.as_int),
        t("redirectUrl"), _read_only(arr("translationChildren")), _ref("translationParent", "page"),
        _read_only(i("variantHits")), _read_only(arr("variantChildren")), _ref("variantParent", "page"),
        arr("variantSettings"), dt("variantStartDate"), b("noIndex")),
    text_columns=("title", "alias"), commands=CONTENT_COMMANDS, minimal_exclude=("customHtml",),
    uniques=("alias",), hooks=AliasHooks("title"))

SMS = Resource(
    "sms", "smses", "sms", "smses", category="object",
    attrs=(t("name", required=True), t("message"), i("sentCount"), t("smsType", default="template")) + _content(),
    commands=CONTENT_COMMANDS, hooks=MessageHooks("sms"))

COMPANY_FIELD, CONTACT_FIELD = (Resource(
    kind, prefix, "field", "fields",
    attrs=(t("label", required=True), t("alias"), t("description"), t("type", default="text"),
           t("group", default="core"), i("order"), _read_only(t("object", default=obj)), t("defaultValue"),
           b("isRequired"), b("isPubliclyUpdatable"), b("isUniqueIdentifier"), o("properties"),
           _read_only(b("isFixed")), b("isListable", default=True), b("isVisible", default=True),
           b("isShortVisible", default=True)),
    text_columns=("label", "alias"), uniques=("alias",), hooks=FieldHooks(obj))
    for kind, prefix, obj in (("companyfield", "fields/company", "company"),
                              ("contactfield", "fields/contact", "lead")))

TWEET = Resource(
    "tweet", "tweets", "tweet", "tweets", category="object",
    attrs=(t("name", required=True), t("text"), t("url"), t("description")) + _content(),
    commands=CONTENT_COMMANDS)

ASSET = Resource(
    "asset", "assets", "asset", "assets", keyed_list=False, category="object",
    attrs=(t("title", required=True), t("description"), t("alias")) + _content(
        _read_only(i("downloadCount")), _read_only(i("uniqueDownloadCount")), _read_only(i("revision", default=1)),
        _read_only(t("extension")), _read_only(t("mime")), _read_only(a.Attr("size", a.as_int)),
        t("storageLocation", default="local"), a.Attr("file", a.as_string, hidden=True), b("disallow")),
    text_columns=("title", "alias"), commands=CONTENT_COMMANDS, uniques=("alias",), hooks=AssetHooks("title"))

TAG = Resource(
    "tag", "tags", "tag", "tags", audit=None,
    attrs=(t("tag", required=True), t("description")), text_columns=("tag",), commands=frozenset({"ids"}),
    uniques=("tag",))

CATEGORY = Resource(
    "category", "categories", "category", "categories", audit="A-", keyed_list=False,
    attrs=(t("title", required=True), t("alias"), t("description"), t("color"), t("bundle", required=True)),
    text_columns=("title", "alias"), commands=frozenset({"ids", "is:published", "is:unpublished"}),
    uniques=("alias",), hooks=AliasHooks("title"))

WEBHOOK = Resource(
    "hook", "hooks", "hook", "hooks", category="object",
    attrs=(t("name", required=True), t("description"), t("webhookUrl", required=True), t("secret"),
           a.choice("eventsOrderbyDir", "ASC", "DESC"), arr("triggers")),
    hooks=WebhookHooks())

ADDRESS = Resource(
    "address", "addresses", "address", "addresses", audit=None, keyed_list=False, put=False,
    attrs=(t("company_name"), t("address"), t("address2"), t("city"), t("state"), t("zip"), t("country"),
           b("is_default")),
    text_columns=("company_name", "address", "city"), commands=frozenset({"ids"}))

NOTE = Resource(
    "note", "notes", "note", "notes", audit="A-", keyed_list=False,
    attrs=(t("text", required=True), a.choice("type", *NOTE_TYPES, default="general"), dt("dateTime"),
           a.Attr("lead", a.as_id, ref="contact", required=True)),
    text_columns=("text",), commands=frozenset({"ids"}), hooks=NoteHooks())

USER = Resource(
    "user", "users", "user", "users", audit="A-", keyed_list=False,
    attrs=(t("username", required=True), t("firstName"), t("lastName"), t("email"), t("position"),
           t("timezone"), t("locale"), _read_only(dt("lastLogin")), _read_only(dt("lastActive")), t("signature"),
           a.Attr("passwordHash", a.as_string, writable=False, hidden=True)),
    text_columns=("username", "firstName", "lastName", "email"), uniques=("username",))

RESOURCES = (CONTACT, WEBHOOK, AUTOMATION, FORM, CONTACT_FIELD, COMPANY_FIELD, ADDRESS, EMAIL, SEGMENT,
             DYNAMIC_CONTENT, TRIGGER, POINT, NOTIFICATION, PAGE, SMS, COMPANY, TWEET, ASSET, TAG, CATEGORY)
