"""The contact document, as stored and as it crosses modules: contacts write it, segments, points,
stages and automations read and change it inside the contact's write (the subscriber table).

Its keys are fixed by the `contact` declaration (contacts/declarations.py), the audit stamp and the
capabilities that keep their state in it (`segments`, `automations`, `groupScores`); `values` holds the
custom field values by alias, whose names are chosen at run time. Every key is optional
(`total=False`): a document under construction, or one written before a key existed, may lack it.
"""

from typing import TypeAlias, TypedDict

from chalicelib.domain.kernel.types import JSON, Doc


class SegmentEntry(TypedDict):
    """A contact's membership of one segment (`segments[<segment id>]`, segments/membership.py)."""

    dateAdded: str
    manuallyAdded: bool
    manuallyRemoved: bool


class CategoryEntry(TypedDict):
    """A contact's subscription to one category (`categories[<category id>]`, contacts/contact_categories.py)."""

    dateAdded: str
    manuallyAdded: bool
    manuallyRemoved: bool


class TagEntry(TypedDict):
    """A tag on a contact: `id` None until the write that names it for the first time is valid."""

    id: int | None
    tag: str
    description: str | None


class CompanyLink(TypedDict):
    """A contact's link to a company; the primary one names the `company` field."""

    id: int
    dateAdded: str
    isPrimary: bool


class ContactDocument(TypedDict, total=False):
    """A stored contact (see the module docstring)."""

    id: int
    values: dict[str, JSON]  # custom field values by alias (`points` among them)
    uniqueFields: list[str]
    owner: int | None
    stage: int | None
    lastActive: str | None
    dateIdentified: str | None
    preferredProfileImage: str | None
    tags: list[TagEntry]
    ipAddresses: list[Doc]  # {id, ipAddress, ipDetails}
    utmtags: list[Doc]  # {id, dateAdded, query, utmCampaign, ...}
    doNotContact: list[Doc]  # {id, dateAdded, channel, reason, comments, channelId}
    frequencyRules: list[Doc]
    companies: list[CompanyLink]
    devices: list[Doc]  # contacts/devices.py
    segments: dict[str, SegmentEntry]  # by segment id
    categories: dict[str, CategoryEntry]  # by category id: Mautic's lead_categories
    automations: dict[str, Doc]  # by automation id: automations/journey_entry.py's JourneyEntry
    groupScores: dict[str, int]  # by point group id
    dwcSlots: dict[str, int]  # dynamic content an automation gave the contact, by slot (automations/dwc_requests.py)
    isPublished: bool
    dateAdded: str
    dateModified: str | None
    createdBy: int | None
    createdByUser: str | None
    modifiedBy: int | None
    modifiedByUser: str | None


# A contact document: typed where the code builds or changes one, or as read from the store (whose
# documents are plain `Doc`s); functions that take either check every key they use on the typed one.
Contact: TypeAlias = ContactDocument | Doc
