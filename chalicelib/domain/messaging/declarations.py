"""The resources of messaging: emails, text messages, dynamic content, notifications, tweets,
marketing messages."""
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import CONTENT_COMMANDS, CORE_COMMANDS, Resource, content, read_only, ref, refs
from chalicelib.domain.messaging.email_hooks import EmailHooks, MessageHooks
from chalicelib.domain.messaging.marketing_messages import MarketingMessageHooks, as_channels


t, i, b, dt, arr, o = a.text, a.integer, a.boolean, a.datetime_, a.array, a.obj


EMAIL = Resource(
    "email", "emails", "email", "emails", category="object", permission="email:emails",
    attrs=(t("name", required=True), t("subject"), t("fromAddress"), t("fromName"), t("replyToAddress"),
           t("bccAddress"), b("useOwnerAsMailer"), t("preheaderText")) + content(
        i("readCount"), i("sentCount"), i("revision", default=1), t("customHtml"), t("plainText"), t("template"),
        a.choice("emailType", "template", "list", default="template"), read_only(arr("translationChildren")),
        ref("translationParent", "email"), i("variantSentCount"), i("variantReadCount"),
        read_only(arr("variantChildren")), ref("variantParent", "email"), arr("variantSettings"),
        dt("variantStartDate"), ref("unsubscribeForm", "form"), arr("dynamicContent"), refs("lists", "segment"),
        refs("assetAttachments", "asset"), o("utmTags"), o("headers"), b("publicPreview", default=True)),
    text_columns=("name", "subject"), commands=CONTENT_COMMANDS,
    minimal_exclude=("customHtml", "plainText", "dynamicContent", "variantSettings", "headers"),
    summary=("id", "name", "subject", "language", "category"), hooks=EmailHooks())

SMS = Resource(
    "sms", "smses", "sms", "smses", category="object", permission="sms:smses",
    attrs=(t("name", required=True), t("message"), i("sentCount"), t("smsType", default="template")) + content(),
    commands=CONTENT_COMMANDS, hooks=MessageHooks("sms"))

DYNAMIC_CONTENT = Resource(
    "dynamiccontent", "dynamiccontents", "dynamicContent", "dynamicContents", category="object",
    permission="dynamiccontent:dynamiccontents",
    attrs=(t("name", required=True), t("description"), t("content"), i("sentCount"),
           read_only(arr("variantChildren")), ref("variantParent", "dynamiccontent"),
           ref("translationParent", "dynamiccontent"), b("isCampaignBased", default=True), t("slotName"),
           arr("filters"), o("utmTags")) + content(),
    commands=CONTENT_COMMANDS, minimal_exclude=("content",), summary=("id", "name", "category"))

NOTIFICATION = Resource(
    "notification", "notifications", "notification", "notifications", category="object",
    permission="notification:notifications",
    attrs=(t("name", required=True), t("heading"), t("message"), t("url"), t("button"), b("mobile"))
    + content(i("readCount"), i("sentCount")),
    commands=CONTENT_COMMANDS)

TWEET = Resource(
    "tweet", "tweets", "tweet", "tweets", category="object", permission="mauticSocial:tweets",
    attrs=(t("name", required=True), t("text"), t("url"), t("description")) + content(),
    commands=CONTENT_COMMANDS)

MESSAGE = Resource(
    "message", "messages", "message", "messages", keyed_list=False, category="object", permission="channel:messages",
    attrs=(t("name", required=True), t("description"), a.Attr("channels", as_channels, default=[])),
    commands=CORE_COMMANDS, minimal_exclude=("channels",), summary=("id", "name", "description"),
    hooks=MarketingMessageHooks())
