"""The resources of the public web: forms, landing pages and assets."""
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.resources import CONTENT_COMMANDS, CORE_COMMANDS, Resource, content, read_only, ref
from chalicelib.domain.web.assets import AssetHooks
from chalicelib.domain.web.focus import FOCUS_STYLES, FOCUS_TYPES, FocusHooks
from chalicelib.domain.web.forms import FormHooks


t, i, b, dt, arr, o = a.text, a.integer, a.boolean, a.datetime_, a.array, a.obj


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
    "form", "forms", "form", "forms", keyed_list=False, category="object", permission="form:forms",
    attrs=(t("name", required=True), t("description"), t("alias"), read_only(t("cachedHtml", default="")),
           t("template"), b("inKioskMode"), b("renderStyle", default=True),
           a.choice("formType", "standalone", "campaign", default="standalone"),
           a.choice("postAction", "return", "redirect", "message", default="message"),
           t("postActionProperty"), b("noIndex"), t("formAttributes"), t("language")),
    nested=(a.Nested("fields", "formfield", FORM_FIELD_ATTRS), a.Nested("actions", "formaction", FORM_ACTION_ATTRS)),
    commands=CORE_COMMANDS | {"name", "has:results"}, minimal_exclude=("cachedHtml", "fields", "actions"),
    uniques=("alias",), summary=("id", "name", "alias", "category"), hooks=FormHooks())

PAGE = Resource(
    "page", "pages", "page", "pages", keyed_list=False, category="object", permission="page:pages",
    attrs=(t("title", required=True), t("description"), t("alias")) + content(
        t("template"), t("customHtml"), read_only(i("hits")), read_only(i("uniqueHits")),
        read_only(i("revision", default=1)), t("metaDescription"), a.Attr("redirectType", a.as_int),
        t("redirectUrl"), read_only(arr("translationChildren")), ref("translationParent", "page"),
        read_only(i("variantHits")), read_only(arr("variantChildren")), ref("variantParent", "page"),
        arr("variantSettings"), dt("variantStartDate"), b("noIndex")),
    text_columns=("title", "alias"), commands=CONTENT_COMMANDS, minimal_exclude=("customHtml",),
    uniques=("alias",), summary=("id", "title", "alias", "category"), hooks=AliasHooks("title"))

ASSET = Resource(
    "asset", "assets", "asset", "assets", keyed_list=False, category="object", permission="asset:assets",
    attrs=(t("title", required=True), t("description"), t("alias")) + content(
        read_only(i("downloadCount")), read_only(i("uniqueDownloadCount")), read_only(i("revision", default=1)),
        read_only(t("extension")), read_only(t("mime")), read_only(a.Attr("size", a.as_int)),
        t("storageLocation", default="local"), a.Attr("file", a.as_string, hidden=True), b("disallow")),
    text_columns=("title", "alias"), commands=CONTENT_COMMANDS, uniques=("alias",),
    summary=("id", "title", "alias", "category", "description"), hooks=AssetHooks("title"))

FOCUS = Resource(
    "focus", "focus", "focus", "focus", category="object", permission="focus:items",
    attrs=(t("name", required=True), t("description"), a.choice("type", *FOCUS_TYPES, required=True),
           a.choice("style", *FOCUS_STYLES, required=True), t("website"), a.Attr("form", a.as_id), o("properties"),
           o("utmTags"), t("htmlMode"), t("editor"), t("html"), read_only(t("cache"))),
    commands=CORE_COMMANDS, minimal_exclude=("editor", "html", "cache"), summary=("id", "name", "category"),
    hooks=FocusHooks())
