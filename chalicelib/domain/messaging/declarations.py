"""The resources of messaging: emails, text messages, dynamic content, notifications, tweets,
marketing messages."""

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import (
    CONTENT_COMMANDS,
    CORE_COMMANDS,
    Resource,
    children,
    content,
    read_only,
    ref,
    refs,
)
from chalicelib.domain.messaging.email_hooks import EmailHooks, MessageHooks
from chalicelib.domain.messaging.marketing_messages import MarketingMessageHooks, as_channels

EMAIL = Resource(
    kind="email",
    prefix="emails",
    singular="email",
    plural="emails",
    routes="channels",
    category="object",
    permission="email:emails",
    attrs=(
        a.text("name", required=True),
        a.text("subject"),
        a.text("fromAddress"),
        a.text("fromName"),
        a.text("replyToAddress"),
        a.text("bccAddress"),
        a.boolean("useOwnerAsMailer"),
        a.text("preheaderText"),
    )
    + content(
        a.integer("readCount"),
        a.integer("sentCount"),
        a.integer("revision", default=1),
        a.html("customHtml"),
        a.html("plainText"),
        a.text("template"),
        a.choice("emailType", "template", "list", default="template"),
        children("translationChildren", "email", parent="translationParent"),
        ref("translationParent", "email"),
        a.integer("variantSentCount"),
        a.integer("variantReadCount"),
        children("variantChildren", "email", parent="variantParent"),
        ref("variantParent", "email"),
        a.php_array("variantSettings"),
        a.datetime_("variantStartDate"),
        ref("unsubscribeForm", "form"),
        ref("preferenceCenter", "page"),
        a.array("dynamicContent"),
        refs("lists", "segment"),
        refs("assetAttachments", "asset"),
        a.obj("utmTags"),
        a.obj("headers"),
        a.boolean("publicPreview"),  # Mautic: false until set (testSingleEmailWorkflow)
    ),
    text_columns=("name", "subject"),
    commands=CONTENT_COMMANDS,
    list_filters=("variantParent",),  # Mautic's EmailApiController::getEntitiesAction: parents and translations
    minimal_exclude=("customHtml", "plainText", "dynamicContent", "variantSettings", "headers"),
    summary=("id", "name", "subject", "language", "category"),
    hooks=EmailHooks(),
)

SMS = Resource(
    kind="sms",
    prefix="smses",
    singular="sms",
    plural="smses",
    routes="channels",
    category="object",
    permission="sms:smses",
    attrs=(
        a.text("name", required=True),
        a.text("message"),
        a.integer("sentCount"),
        a.text("smsType", default="template"),
    )
    + content(refs("lists", "segment")),
    commands=CONTENT_COMMANDS,
    hooks=MessageHooks("sms"),
)

DYNAMIC_CONTENT = Resource(
    kind="dynamiccontent",
    prefix="dynamiccontents",
    singular="dynamicContent",
    plural="dynamicContents",
    routes="channels",
    category="object",
    permission="dynamiccontent:dynamiccontents",
    attrs=(
        a.text("name", required=True),
        a.text("description"),
        a.html("content"),
        a.integer("sentCount"),
        children("variantChildren", "dynamiccontent", parent="variantParent"),
        ref("variantParent", "dynamiccontent"),
        a.php_array("variantSettings"),
        ref("translationParent", "dynamiccontent"),
        a.boolean("isCampaignBased", default=True),
        a.text("slotName"),
        a.array("filters"),
        a.obj("utmTags"),
    )
    + content(),
    commands=CONTENT_COMMANDS,
    minimal_exclude=("content",),
    summary=("id", "name", "category"),
    counted=(("sentCount",),),
)

NOTIFICATION = Resource(
    kind="notification",
    prefix="notifications",
    singular="notification",
    plural="notifications",
    routes="channels",
    category="object",
    permission="notification:notifications",
    attrs=(
        a.text("name", required=True),
        a.text("description"),
        a.text("heading"),
        a.text("message"),
        a.text("url"),
        a.text("button"),
        a.boolean("mobile"),
        a.obj("utmTags"),
    )
    + content(a.integer("readCount"), a.integer("sentCount")),
    commands=CONTENT_COMMANDS,
)

TWEET = Resource(
    kind="tweet",
    prefix="tweets",
    singular="tweet",
    plural="tweets",
    routes="channels",
    category="object",
    permission="mauticSocial:tweets",
    attrs=(
        a.text("name", required=True),
        a.text("text"),
        a.text("url"),
        a.text("description"),
        read_only(a.text("mediaId")),
        read_only(a.text("mediaPath")),
        read_only(a.integer("sentCount")),
        read_only(a.integer("favoriteCount")),
        read_only(a.integer("retweetCount")),
    )
    + content(),
    commands=CONTENT_COMMANDS,
)

MESSAGE = Resource(
    kind="message",
    prefix="messages",
    singular="message",
    plural="messages",
    routes="channels",
    keyed_list=False,
    category="object",
    permission="channel:messages",
    attrs=(a.text("name", required=True), a.text("description"), a.Attr("channels", as_channels, default=[])),
    commands=CORE_COMMANDS,
    minimal_exclude=("channels",),
    summary=("id", "name", "description"),
    hooks=MarketingMessageHooks(),
)

# The resources this capability declares, registered by `domain/wiring.py`.
RESOURCES = (EMAIL, SMS, NOTIFICATION, TWEET, DYNAMIC_CONTENT, MESSAGE)
