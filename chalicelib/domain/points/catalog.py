"""The fixed catalogues of points: point action types and point trigger event types."""

POINT_ACTION_TYPES = {
    "asset.download": "Downloads an asset",
    "email.open": "Opens an email",
    "email.send": "Is sent an email",
    "form.submit": "Submits a form",
    "page.hit": "Visits a landing page",
    "url.hit": "Visits specific URL",
}

TRIGGER_EVENT_TYPES = {
    "campaign.changecampaign": "Modify contact's campaigns",
    "email.send": "Send an email",
    "email.send_to_user": "Send an email to user",
    "lead.changelists": "Modify contact's segments",
    "lead.changetags": "Modify contact's tags",
    "plugin.leadpush": "Push contact to integration",
}

# Trigger event types accepted beyond Mautic's catalogue (which `/points/triggers/events/types` answers as Mautic's):
# `stage.change`, the contact enters a stage (Mautic core has no such trigger event; docs/stages.md).
EXTRA_TRIGGER_EVENT_TYPES = {"stage.change": "Change contact's stage"}
