"""The resources of the public web: forms, landing pages and assets."""
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.resources import CONTENT_COMMANDS, CORE_COMMANDS, Resource, content, read_only, ref
from chalicelib.domain.web.assets import AssetHooks
from chalicelib.domain.web.focus import FOCUS_STYLES, FOCUS_TYPES, FocusHooks
from chalicelib.domain.web.forms import FormHooks


FORM_FIELD_TYPES = ("text", "textarea", "email", "tel", "url", "number", "date", "datetime", "country", "select",
                    "radiogrp", "checkboxgrp", "hidden", "password", "file", "captcha", "freetext", "freehtml",
                    "pagebreak", "button", "companyLookup", "plugin.loginSocial")

FORM_FIELD_ATTRS = (a.text("label", required=True), a.boolean("showLabel", default=True), a.text("alias"),
                    a.choice("type", *FORM_FIELD_TYPES, required=True), a.text("defaultValue"), a.boolean("isRequired"),
                    a.text("validationMessage"), a.text("helpMessage"), a.integer("order"), a.obj("properties"),
                    a.obj("validation"), a.Attr("parent", a.as_int), a.obj("conditions"), a.text("labelAttributes"),
                    a.text("inputAttributes"), a.text("containerAttributes"), a.text("leadField"),
                    a.boolean("saveResult", default=True), a.boolean("isAutoFill"),
                    a.choice("mappedObject", "contact", "company"), a.text("mappedField"))

FORM_ACTION_ATTRS = (a.text("name"), a.text("description"), a.text("type", required=True), a.integer("order"),
                     a.obj("properties"))

FORM = Resource(
    kind="form", prefix="forms", singular="form", plural="forms", keyed_list=False, category="object",
    permission="form:forms",
    attrs=(a.text("name", required=True), a.text("description"), a.text("alias"),
           read_only(a.text("cachedHtml", default="")), a.text("template"), a.boolean("inKioskMode"),
           a.boolean("renderStyle", default=True), a.choice("formType", "standalone", "campaign", default="standalone"),
           a.choice("postAction", "return", "redirect", "message", default="message"), a.text("postActionProperty"),
           a.boolean("noIndex"), a.text("formAttributes"), a.text("language")),
    nested=(a.Nested("fields", "formfield", FORM_FIELD_ATTRS), a.Nested("actions", "formaction", FORM_ACTION_ATTRS)),
    commands=CORE_COMMANDS | {"name", "has:results"}, minimal_exclude=("cachedHtml", "fields", "actions"),
    uniques=("alias",), summary=("id", "name", "alias", "category"), hooks=FormHooks())

PAGE = Resource(
    kind="page", prefix="pages", singular="page", plural="pages", keyed_list=False, category="object",
    permission="page:pages",
    attrs=(a.text("title", required=True), a.text("description"), a.text("alias")) + content(
        a.text("template"), a.text("customHtml"), read_only(a.integer("hits")), read_only(a.integer("uniqueHits")),
        read_only(a.integer("revision", default=1)), a.text("metaDescription"), a.Attr("redirectType", a.as_int),
        a.text("redirectUrl"), read_only(a.array("translationChildren")), ref("translationParent", "page"),
        read_only(a.integer("variantHits")), read_only(a.array("variantChildren")), ref("variantParent", "page"),
        a.array("variantSettings"), a.datetime_("variantStartDate"), a.boolean("noIndex")),
    text_columns=("title", "alias"), commands=CONTENT_COMMANDS, minimal_exclude=("customHtml",), uniques=("alias",),
    summary=("id", "title", "alias", "category"), hooks=AliasHooks("title"))

ASSET = Resource(
    kind="asset", prefix="assets", singular="asset", plural="assets", keyed_list=False, category="object",
    permission="asset:assets",
    attrs=(a.text("title", required=True), a.text("description"), a.text("alias")) + content(
        read_only(a.integer("downloadCount")), read_only(a.integer("uniqueDownloadCount")),
        read_only(a.integer("revision", default=1)), read_only(a.text("extension")), read_only(a.text("mime")),
        read_only(a.Attr("size", a.as_int)), a.text("storageLocation", default="local"),
        a.Attr("file", a.as_string, hidden=True), a.boolean("disallow")),
    text_columns=("title", "alias"), commands=CONTENT_COMMANDS, uniques=("alias",),
    summary=("id", "title", "alias", "category", "description"), hooks=AssetHooks("title"))

FOCUS = Resource(
    kind="focus", prefix="focus", singular="focus", plural="focus", category="object", permission="focus:items",
    attrs=(a.text("name", required=True), a.text("description"), a.choice("type", *FOCUS_TYPES, required=True),
           a.choice("style", *FOCUS_STYLES, required=True), a.text("website"), a.Attr("form", a.as_id),
           a.obj("properties"), a.obj("utmTags"), a.text("htmlMode"), a.text("editor"), a.text("html"),
           read_only(a.text("cache"))),
    commands=CORE_COMMANDS, minimal_exclude=("editor", "html", "cache"), summary=("id", "name", "category"),
    hooks=FocusHooks())
