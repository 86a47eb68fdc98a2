"""The automation event types a graph may hold."""

# Automation event types by `eventType` (compat 10.1). Each is accepted on save; docs/automations.md
# says which ones run (automations/automation_steps.py) and which are recorded as failed ("not available").
AUTOMATION_EVENT_TYPES: dict[str | None, frozenset[str]] = {
    "action": frozenset(
        {
            "lead.changepoints",
            "lead.changelist",
            "lead.updatelead",
            "lead.updatecompany",
            "lead.changetags",
            "lead.addtocompany",
            "lead.changeowner",
            "lead.scorecontactscompanies",
            "lead.adddnc",
            "lead.removednc",
            "lead.deletecontact",
            "campaign.addremovelead",
            "campaign.jump_to_event",
            "email.send",
            "email.send.to.user",
            "sms.send_text_sms",
            "notification.send_notification",
            "notification.send_mobile_notification",
            "message.send",
            "dwc.push_content",
            "tracking.pixel.send",
            "stage.change",
            "campaign.sendwebhook",
            "plugin.leadpush",
            "focus.show",
            "twitter.tweet",
        }
    ),
    "decision": frozenset(
        {
            "email.open",
            "email.click",
            "email.reply",
            "page.pagehit",
            "page.devicehit",
            "form.submit",
            "asset.download",
            "dwc.decision",
            "sms.reply",
        }
    ),
    "condition": frozenset(
        {
            "lead.field_value",
            "lead.device",
            "lead.pageHit",
            "lead.tags",
            "lead.segments",
            "lead.stages",
            "lead.owner",
            "lead.campaigns",
            "lead.dnc",
            "lead.points",
            "form.field_value",
            "email.validate.address",
            "notification.has.active",
        }
    ),
}
