"""Automation actions that write the contact's companies, run by the automations worker after the
write that claimed them: `lead.scorecontactscompanies` (LeadBundle CampaignSubscriber::
onCampaignTriggerActionChangeCompanyScore, LeadModel::scoreContactsCompany): `score` is added to the
score of each company the contact is linked to; a contact with no company fails the action (Mautic's
`mautic.lead.no_company`). Each company is scored at most once per run (a claimed marker), in a
revisioned write read again when it changed meanwhile."""

import copy
from functools import partial

from chalicelib.domain.automations import journey_entry
from chalicelib.domain.contacts.declarations import COMPANY
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.store import port as store


def score_companies(props: Doc, contact: Doc, event: Doc, ctx: Context) -> tuple[str, str | None]:
    """`lead.scorecontactscompanies`: (status, reason)."""
    try:
        delta = a.as_int(props.get("score"))
    except a.Invalid:
        return "failed", "The score is not a whole number."
    links = contact.get("companies") or []
    if not links:
        return "failed", "The contact has no company."
    run = journey_entry.run_key(contact, event["id"])
    for link in links:
        if store.claim(f"campaign-score#{run}#{link['id']}"):
            service.retrying(partial(_add, int(link["id"]), delta, ctx), ctx)
    return "ok", None


def _add(company_id: int, delta: int, ctx: Context) -> None:
    existing = store.get(COMPANY.kind, company_id)
    if existing is None:
        return
    doc = copy.deepcopy(existing)
    doc["score"] = int(doc.get("score") or 0) + delta
    service.save_change(COMPANY, existing, doc, ctx, stamp=False)
