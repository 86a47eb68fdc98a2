"""A contact payload's `companies` (compat 8.5, issue 34): the list of the companies the contact is in.

As Mautic's `LeadModel::modifyCompanies`, the contact is added to each company listed that it is not
in, then taken out of each it is in that the list leaves out (`[]` takes it out of all; `null` or no
`companies` changes nothing). The links change as the membership routes
(`POST /companies/<id>/contact/<contactId>/add|remove`) change them, through the same functions
(`contact_actions.link_company`, `unlink_company`): the same primary company and `company` field,
the same `lead_company_change` webhooks (from the links before and after), and the same permission:
the caller must be allowed to view each company it adds or removes (the routes' `Need`), else 403.
An id of no company is a 400 naming `companies`. The links are in the contact document, so they are
written in the contact's own transaction: a refused write changes none of them.
"""

from chalicelib.domain.contacts import contact_actions
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.kernel import access, references, registry
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.resources import Write


def requested(value: object) -> list[int]:
    """The company ids a `companies` value lists (ids, or objects with `id` as
    `GET /contacts/<id>/companies` answers them), once each; Invalid otherwise."""
    items = a.as_list(value) if value != "" else []
    try:
        return list(dict.fromkeys(a.as_id(item) for item in items))
    except a.Invalid:
        raise a.Invalid("List the ids of the companies the contact is in, such as [1, 2].") from None


def apply(doc: Contact, write: Write) -> None:
    """Link the contact document to the companies the payload lists and unlink it from the others;
    an error of the write (`companies`) when the value is not a list of ids or names an unknown
    company, Forbidden when the caller may not view a company it adds or removes."""
    try:
        wanted = requested(write.payload["companies"])
    except a.Invalid as error:
        write.errors["companies"] = [str(error)]
        return
    current = [link["id"] for link in doc.get("companies") or []]
    added = [i for i in wanted if i not in current]
    removed = [i for i in current if i not in wanted]
    found = references.referenced("company", added + removed, write.ctx)
    missing = [str(i) for i in added if i not in found]
    if missing:
        write.errors["companies"] = [f"No company found with id {', '.join(missing)}."]
        return
    companies = registry.resource("company")
    for company_id in added + removed:
        if company_id in found:  # a link to a company deleted since is dropped without a check
            access.require(write.ctx, companies, Action.VIEW, found[company_id])
    named = doc["values"].get("company")
    for company_id in added:  # added before removed, as Mautic
        contact_actions.link_company(doc, found[company_id], write.ctx)
    for company_id in removed:
        contact_actions.unlink_company(doc, found.get(company_id) or {"id": company_id}, write.ctx)
    if "company" in write.payload:  # a `company` value sent wins (Mautic sets the field values after)
        doc["values"]["company"] = named
