"""The webhook triggers a hook may subscribe to (compat 5.1)."""

WEBHOOK_TRIGGERS = {
    "mautic.lead_post_save_new": ("Contact Identified Event", "Triggered when a contact becomes identified."),
    "mautic.lead_post_save_update": ("Contact Updated Event", "Triggered when an identified contact is updated."),
    "mautic.lead_points_change": ("Contact Points Changed Event", "Triggered when a contact's points change."),
    "mautic.lead_post_delete": ("Contact Deleted Event", "Triggered when a contact is deleted."),
    "mautic.lead_channel_subscription_changed": (
        "Contact Channel Subscription Change Event",
        "Triggered when a contact's do-not-contact status changes for a channel.",
    ),
    "mautic.lead_company_change": (
        "Contact Company Subscription Change Event",
        "Triggered when a contact is added to or removed from a company.",
    ),
    "mautic.company_post_save": ("Company Create/Update Event", "Triggered when a company is created or updated."),
    "mautic.company_post_delete": ("Company Deleted Event", "Triggered when a company is deleted."),
    "mautic.lead_list_change": (
        "Contact Segment Membership Change Event",
        "Triggered when a contact is added to or removed from a segment.",
    ),
    "mautic.email_on_send": ("Email Send Event", "Triggered when an email is sent to a contact."),
    "mautic.email_on_open": ("Email Open Event", "Triggered when a contact opens an email."),
    "mautic.form_on_submit": ("Form Submit Event", "Triggered when a form is submitted."),
    "mautic.page_on_hit": ("Page Hit Event", "Triggered when a page or tracked URL is hit."),
    "mautic.sms_on_send": ("Text Send Event", "Triggered when a text message is sent."),
    "mautic.campaign_on_leadchange": (
        "Contact Automation Membership Change Event",
        "Triggered when a contact enters or leaves an automation.",
    ),
    "mautic.campaign_on_event_executed": (
        "Automation Event Executed Event",
        "Triggered when an automation runs an event for a contact.",
    ),
}


def webhook_triggers() -> dict[str, dict[str, str]]:
    """{name: {label, description}} sorted by label, case-insensitively."""
    ordered = sorted(WEBHOOK_TRIGGERS.items(), key=lambda item: item[1][0].lower())
    return {name: {"label": label, "description": text} for name, (label, text) in ordered}
