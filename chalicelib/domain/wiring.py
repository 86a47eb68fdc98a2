"""The house assembled: every capability's resources for the kernel's registry, and the one table of
subscribers through which a capability reacts to another's writes.

A capability declares its resources once, in its `declarations.py` (`RESOURCES`: storage, JSON keys,
attributes, hooks, permission, and the route table serving it); `CAPABILITIES` lists those modules
once. Importing this module installs nothing: `bootstrap.assemble()` registers these resources with
auth's (users, roles) and installs the table, called by each composition root (`app.py`, the command
line, the first start, the local stack, the tests) before it serves; the API installs the standard and
batch routes from the same declarations (`api/standard.py`, `api/batch.py`). It is the only domain
module that imports every capability; no capability imports it.
"""

from types import ModuleType

from chalicelib.domain.automations import automation_runs, journeys, segment_usage
from chalicelib.domain.automations import declarations as automations
from chalicelib.domain.contacts import declarations as contacts
from chalicelib.domain.contacts import erasure
from chalicelib.domain.kernel import basics, subscribers
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.messaging import declarations as messaging
from chalicelib.domain.messaging import email_sends, send_erasure, user_emails
from chalicelib.domain.points import declarations as points
from chalicelib.domain.points import points_engine
from chalicelib.domain.segments import declarations as segments
from chalicelib.domain.segments import membership, rebuilds
from chalicelib.domain.stages import declarations as stage_declarations
from chalicelib.domain.stages import stages
from chalicelib.domain.views import declarations as views
from chalicelib.domain.web import declarations as web
from chalicelib.domain.web import visit_erasure
from chalicelib.domain.webhooks import declarations as webhooks
from chalicelib.domain.webhooks import webhook_events

# Each capability's declarations (tags and categories are the kernel's), from the bottom up.
CAPABILITIES: tuple[ModuleType, ...] = (
    basics,
    contacts,
    segments,
    stage_declarations,
    points,
    messaging,
    web,
    automations,
    webhooks,
    views,
)
RESOURCES: tuple[Resource, ...] = tuple(resource for capability in CAPABILITIES for resource in capability.RESOURCES)

SUBSCRIBERS = subscribers.Table(
    # In a contact's write, before it is stored, in this order:
    write={
        "contact": (
            points_engine.on_contact_write,  # points: run the triggers the change's points cross
            journeys.on_contact_write,  # automations: enter, leave, decide and act on the change's events
            membership.on_contact_write,  # segments: membership rows and events
            journeys.on_membership_change,  # automations: members and due rows, membership events
            stages.on_contact_write,  # stages: the contacts-by-stage index (last: sees the final stage)
        ),
        "segment": (segment_usage.on_segment_write,),  # automations: a segment they use stays published
    },
    # Every write, once its events are final: the webhook outbox item, in the same transaction.
    announce=(webhook_events.announce,),
    # After the commit:
    stored={
        "contact": (automation_runs.on_contact_stored,),  # automations: queue the events due soon
        "company": (rebuilds.on_company_stored,),  # segments: rebuild those filtering on companies
    },
    committed=(webhook_events.queue,),  # webhooks: queue the outbox items stored
    # A contact deleted for good, erased by its background job (contacts/erasure.py), step by step:
    erase=(
        ("sends", send_erasure.anonymise_sends),  # messaging: send records keep counts, lose the person
        ("texts", send_erasure.anonymise_texts),  # messaging: text-message send records likewise
        ("deferred-sends", send_erasure.forget_deferred_sends),  # messaging: sends held back by a frequency cap
        ("segment-sends", send_erasure.forget_segment_sends),  # messaging: its rows of segment sends and broadcasts
        ("outbox", send_erasure.forget_outbox),  # messaging: the local outbox's copies of what it was sent
        ("segment-joins", membership.forget_joins),  # segments: its join rows (broadcasts read them)
        ("uploads", visit_erasure.forget_uploads),  # web: the files uploaded with its submissions
        ("submissions", visit_erasure.anonymise_submissions),  # web: submissions lose values and address
        ("notes", erasure.forget_notes),  # contacts: notes and their index
        ("timeline", erasure.forget_timeline),  # contacts: events and feed entries (the steps above read them)
        ("announce", webhook_events.announce_erased),  # webhooks: lead_post_delete, once the data is gone
    ),
    # Point-trigger events that other capabilities carry out:
    actions={
        "campaign.changecampaign": journeys.on_trigger,
        "email.send": email_sends.after_trigger,
        "email.send_to_user": user_emails.after_trigger,
    },
    # Search commands segments add to contacts:
    commands={
        ("contact", "segment"): membership.SEGMENT_COMMAND,
        ("contact", "common"): membership.COMMON_COMMAND,
        ("contact", "stage"): stages.STAGE_COMMAND,
    },
)
