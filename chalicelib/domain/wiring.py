"""The house assembled: every capability's resources for the kernel's registry, and the one table of
subscribers through which a capability reacts to another's writes.

A capability declares its resources once, in its `declarations.py` (`RESOURCES`: storage, JSON keys,
attributes, hooks, permission, and the route table serving it); `CAPABILITIES` lists those modules
once, with the kinds each declares. Importing this module installs nothing and imports no capability:
`bootstrap.assemble()` installs this index in the registry (with auth's users and roles) and the table
in the kernel, called by each composition root (`app.py`, the command line, the first start, the local
stack, the tests, a worker's first message) before it serves, and both import a capability's module
when a lookup or a write first needs it (a worker loads what its messages reach, docs/deploy.md "Cold
start per function"); the API installs the standard and batch routes from the same declarations
(`api/standard.py`, `api/batch.py`). It is the only domain module that names every capability; no
capability imports it.
"""

import importlib

from chalicelib.domain.kernel import subscribers
from chalicelib.domain.kernel.resources import Resource

# Each capability's declarations module and the kinds its `RESOURCES` declare (tags and categories are
# the kernel's), from the bottom up: the registry imports a module on the first lookup of one of them.
CAPABILITIES: dict[str, tuple[str, ...]] = {
    "chalicelib.domain.kernel.basics": ("tag", "category"),
    "chalicelib.domain.contacts.declarations": (
        "contact",
        "company",
        "contactfield",
        "companyfield",
        "address",
        "note",
        "device",
    ),
    "chalicelib.domain.segments.declarations": ("segment",),
    "chalicelib.domain.stages.declarations": ("stage",),
    "chalicelib.domain.points.declarations": ("point", "trigger", "pointgroup"),
    "chalicelib.domain.messaging.declarations": ("email", "sms", "notification", "tweet", "dynamiccontent", "message"),
    "chalicelib.domain.web.declarations": ("form", "page", "asset", "focus"),
    "chalicelib.domain.automations.declarations": ("automation",),
    "chalicelib.domain.webhooks.declarations": ("hook",),
    "chalicelib.domain.views.declarations": ("report",),
}


def resources() -> tuple[Resource, ...]:
    """Every capability's resources, in order: imports every declarations module (the API's routes)."""
    return tuple(r for module in CAPABILITIES for r in importlib.import_module(module).RESOURCES)


# Each subscriber as `capability.module:name` under chalicelib.domain, imported when its phase first runs.
SUBSCRIBERS = subscribers.Table(
    # In a contact's write, before it is stored, in this order:
    write={
        "contact": (
            "points.points_engine:on_contact_write",  # points: run the triggers the change's points cross
            "automations.journeys:on_contact_write",  # automations: enter, leave, decide and act on the change's events
            "segments.membership:on_contact_write",  # segments: membership rows and events
            "automations.journeys:on_membership_change",  # automations: members and due rows, membership events
            "stages.stages:on_contact_write",  # stages: the contacts-by-stage index (last: sees the final stage)
        ),
        "segment": ("automations.segment_usage:on_segment_write",),  # automations: a segment they use stays published
    },
    # Every write, once its events are final: the webhook outbox item, in the same transaction.
    announce=("webhooks.webhook_events:announce",),
    # After the commit:
    stored={
        "contact": ("automations.automation_runs:on_contact_stored",),  # automations: queue the events due soon
        "company": ("segments.rebuilds:on_company_stored",),  # segments: rebuild those filtering on companies
    },
    committed=("webhooks.webhook_events:queue",),  # webhooks: queue the outbox items stored
    # A contact deleted for good, erased by its background job (contacts/erasure.py), step by step:
    erase=(
        ("sends", "messaging.send_erasure:anonymise_sends"),  # messaging: send records keep counts, lose the person
        ("texts", "messaging.send_erasure:anonymise_texts"),  # messaging: text-message send records likewise
        ("deferred-sends", "messaging.send_erasure:forget_deferred_sends"),  # messaging: held back by a frequency cap
        ("segment-sends", "messaging.send_erasure:forget_segment_sends"),  # messaging: its segment/broadcast rows
        ("outbox", "messaging.send_erasure:forget_outbox"),  # messaging: the local outbox's copies of what it was sent
        ("segment-joins", "segments.membership:forget_joins"),  # segments: its join rows (broadcasts read them)
        ("uploads", "web.visit_erasure:forget_uploads"),  # web: the files uploaded with its submissions
        ("submissions", "web.visit_erasure:anonymise_submissions"),  # web: submissions lose values and address
        ("notes", "contacts.erasure:forget_notes"),  # contacts: notes and their index
        ("timeline", "contacts.erasure:forget_timeline"),  # contacts: events, feed entries (read above)
        ("announce", "webhooks.webhook_events:announce_erased"),  # webhooks: lead_post_delete, once the data is gone
    ),
    # Point-trigger events that other capabilities carry out:
    actions={
        "campaign.changecampaign": "automations.journeys:on_trigger",
        "email.send": "messaging.email_sends:after_trigger",
        "email.send_to_user": "messaging.user_emails:after_trigger",
    },
    # Search commands segments add to contacts:
    commands={
        ("contact", "segment"): "segments.membership:SEGMENT_COMMAND",
        ("contact", "common"): "segments.membership:COMMON_COMMAND",
        ("contact", "stage"): "stages.stages:STAGE_COMMAND",
    },
)
