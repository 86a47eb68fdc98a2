"""The house assembled: every capability's resources registered in the kernel's registry, and the
one table of subscribers through which a capability reacts to another's writes.

Importing this module installs both (the API, the workers and the command line import it before
they serve). It is the only domain module that imports every capability; no capability imports it.
"""

from chalicelib.domain.automations import automation_runs, journeys, segment_usage
from chalicelib.domain.automations.declarations import AUTOMATION
from chalicelib.domain.contacts import erasure
from chalicelib.domain.contacts.declarations import (
    ADDRESS,
    COMPANY,
    COMPANY_FIELD,
    CONTACT,
    CONTACT_FIELD,
    DEVICE,
    NOTE,
)
from chalicelib.domain.kernel import registry, subscribers
from chalicelib.domain.kernel.basics import CATEGORY, ROLE, TAG, USER
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.messaging import email_sends, send_erasure, user_emails
from chalicelib.domain.messaging.declarations import DYNAMIC_CONTENT, EMAIL, MESSAGE, NOTIFICATION, SMS, TWEET
from chalicelib.domain.points import points_engine
from chalicelib.domain.points.declarations import POINT, POINT_GROUP, TRIGGER
from chalicelib.domain.segments import membership, rebuilds
from chalicelib.domain.segments.declarations import SEGMENT
from chalicelib.domain.stages import stages
from chalicelib.domain.stages.declarations import STAGE
from chalicelib.domain.views.declarations import REPORT
from chalicelib.domain.web import visit_erasure
from chalicelib.domain.web.declarations import ASSET, FOCUS, FORM, PAGE
from chalicelib.domain.webhooks import webhook_events
from chalicelib.domain.webhooks.declarations import WEBHOOK

# The resources with the standard routes, in route order (users and notes have routes of their own).
RESOURCES: tuple[Resource, ...] = (
    CONTACT,
    WEBHOOK,
    AUTOMATION,
    FORM,
    CONTACT_FIELD,
    COMPANY_FIELD,
    ADDRESS,
    EMAIL,
    SEGMENT,
    DYNAMIC_CONTENT,
    TRIGGER,
    POINT,
    NOTIFICATION,
    PAGE,
    SMS,
    COMPANY,
    TWEET,
    ASSET,
    TAG,
    CATEGORY,
    ROLE,
    STAGE,
)
RESOURCES += (FOCUS, MESSAGE, DEVICE, POINT_GROUP)  # focus items, marketing messages, devices, point groups
# The resources with the batch routes: those with the standard routes, and notes (users have none).
BATCHED = RESOURCES + (NOTE,)

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

# Resources with routes of their own: users, notes, reports (read-only views; no batch routes).
registry.install(RESOURCES + (USER, NOTE, REPORT))
subscribers.install(SUBSCRIBERS)
