"""Contacts and companies: custom field values, deduplication on unique fields, tags and IP
addresses written with the contact, identification on the timeline, representation."""

import ipaddress
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet

from chalicelib.domain.contacts import (
    company_links,
    contact_actions,
    contact_merge,
    custom_values,
    devices,
    erasure,
    frequency_rules,
    ip_privacy,
)
from chalicelib.domain.contacts.contact_document import Contact, TagEntry
from chalicelib.domain.contacts.custom_fields import definitions
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import (
    batching,
    cache_keys,
    cached,
    clock,
    references,
    search,
    service,
    timeline,
)
from chalicelib.domain.kernel.basics import TAG
from chalicelib.domain.kernel.capability_hooks import Deduplicated, Listed, Summarized
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Merge, Write
from chalicelib.domain.kernel.types import JSON, Doc, Events
from chalicelib.store import port as store
from chalicelib.store.port import Derived, EntityId

IDENTIFYING = ("firstname", "lastname", "email", "company")
# The core fields of Mautic's `leadBasicList` (a submission's or a contact event's contact), after id, points, color.
BASIC_FIELDS = (
    "title",
    "firstname",
    "lastname",
    "company",
    "position",
    "email",
    "phone",
    "mobile",
    "address1",
    "address2",
    "city",
    "state",
    "zipcode",
    "timezone",
    "country",
)
IP_DETAILS = {
    key: ""
    for key in ("city", "region", "zipcode", "country", "latitude", "longitude", "isp", "organization", "timezone")
}
CONTACT_COLUMNS = {"lastActive", "dateIdentified", "points", "owner"}


def _overwrite_blank(write: Write) -> bool:
    try:
        return a.as_bool(write.payload.get("overwriteWithBlank", False))
    except a.Invalid:
        write.errors["overwriteWithBlank"] = ["This value should be a boolean."]
        return False


def _field_command(doc: Doc, command: search.Command, aliases: AbstractSet[str]) -> bool | None:
    if command.name not in aliases:
        return None
    pattern = command.value if "%" in command.value or command.strict else command.value + "%"
    return search.like((doc.get("values") or {}).get(command.name), pattern, contains=False)


class _Valued(Listed):
    """Shared by contacts and companies: values of the object's custom fields."""

    object_name = "lead"

    def prepare(self, doc: Doc, write: Write) -> None:
        doc["values"] = dict(doc.get("values") or {}) if write.mode == "patch" else {}
        custom_values.apply(self.object_name, doc["values"], write, _overwrite_blank(write))

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        out["fields"] = custom_values.grouped(self.object_name, doc, ctx)

    def permission_user(self, doc: Doc, ctx: Context) -> JSON:
        """The owner, else whoever created it (Mautic's Lead and Company permission user)."""
        return doc.get("owner") or doc.get("createdBy")

    def command(self, doc: Doc, command: search.Command, ctx: Context) -> bool | None:
        return _field_command(doc, command, self._aliases(ctx))

    def term_values(self, doc: Doc) -> list[JSON]:
        values = doc.get("values") or {}
        return [values.get(column) for column in self.resource.text_columns]

    def _aliases(self, ctx: Context) -> set[str]:
        """The object's field aliases, once per request (searches ask for every document)."""
        return ctx.memo(
            cache_keys.field_aliases(self.object_name), lambda: {f["alias"] for f in definitions(self.object_name, ctx)}
        )

    def sort_columns(self, ctx: Context) -> AbstractSet[str]:
        return self._aliases(ctx)

    def sort_value(self, doc: Doc, column: str) -> JSON:
        values = doc.get("values") or {}
        return values[column] if column in values else doc.get(column)


class ContactHooks(_Valued, Deduplicated, Summarized):
    """Contacts: identification, owner, points and color, dedupe on unique-identifier fields."""

    object_name = "lead"

    def prepare(self, doc: Doc, write: Write) -> None:
        """Field values, then what a contact write adds: points, last activity, identification, tags,
        IP address, do-not-contact entries, companies, frequency rules and the stage event."""
        super().prepare(doc, write)
        values = doc["values"]
        values["points"] = values.get("points") or 0
        write.events += _points_set(doc, write.existing)
        _sync_last_active(doc, write)
        doc["uniqueFields"] = self._unique_fields(write.ctx)
        if not doc.get("dateIdentified") and any(values.get(f) for f in IDENTIFYING):
            doc["dateIdentified"] = write.ctx.now
            write.events.append(timeline.event("lead.identified", details={"dateIdentified": write.ctx.now}))
        if "tags" in write.payload:
            _change_tags(doc, write)
        if write.payload.get("ipAddress"):
            _add_ip_address(doc, write)
        if "doNotContact" in write.payload:
            write.events += contact_actions.dnc_from_payload(doc, write)
        if write.payload.get("companies") is not None:
            company_links.apply(doc, write)
        frequency_rules.apply(doc, write)
        write.events += erasure.suppressed(doc, write.existing, write.ctx)
        write.events += _stage_changed(doc, write)

    def finalize(self, doc: Doc, write: Write) -> None:
        """Create the tags named for the first time; give new IP, do-not-contact and frequency rule
        entries their ids."""
        _tag_ids(doc["tags"], write.ctx)
        contact_actions.dnc_ids(doc)
        frequency_rules.give_ids(doc)
        new = [entry for entry in doc["ipAddresses"] if entry["id"] is None]
        for entry, entry_id in zip(new, store.allocate_ids("ipaddress", len(new)) if new else [], strict=True):
            entry["id"] = entry_id

    def _unique_fields(self, ctx: Context) -> list[str]:
        return [f["alias"] for f in definitions("lead", ctx) if f.get("isUniqueIdentifier")]

    def lookup_fields(self, ctx: Context) -> list[str]:
        """The unique-identifier fields: a batch looks up their values in one go."""
        return self._unique_fields(ctx)

    def uniques(self, doc: Doc) -> dict[str, JSON]:
        """The contact's values of the fields that were unique identifiers when it was written."""
        values = doc.get("values") or {}
        return {alias: values.get(alias) for alias in doc.get("uniqueFields") or []}

    def duplicate_of(self, doc: Doc, ctx: Context) -> Doc | None:
        """The stored contact holding one of this contact's unique-identifier values, or None."""
        values = doc.get("values") or {}
        for alias in self._unique_fields(ctx):
            if values.get(alias) not in (None, ""):
                holder = batching.lookup(self.resource.kind, alias, values[alias])
                found = store.get(self.resource.kind, holder) if holder not in (None, doc.get("id")) else None
                if found is not None:
                    return found
        return None

    def consequences(
        self, doc: Doc | None, existing: Doc | None, ctx: Context, events: Sequence[Doc]
    ) -> tuple[list[Derived], Events]:
        """The `device` entities mirroring the contact's devices (domain/contacts/devices.py); a delete
        for good also writes its erasure job (domain/contacts/erasure.py)."""
        items = devices.mirror_items(doc, existing)
        if doc is None and existing is not None and erasure.erasing(existing["id"], ctx):
            items += erasure.job_items(existing, ctx)
        return items, []

    def before_delete(self, doc: Doc, ctx: Context) -> None:
        """A contact deleted (not merged into another) is erased: its delete writes the job."""
        erasure.mark(doc["id"], ctx)

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """After a delete for good: queue its erasure job."""
        if doc is None and existing is not None and erasure.erasing(existing["id"], ctx):
            erasure.queue(existing["id"])

    def merge(self, merge: Merge) -> Doc:
        """Two contacts that are one person are stored as one (contacts/contact_merge.py)."""
        return contact_merge.merge(self.resource, merge)

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        """The fields, plus the points and the colour of the highest trigger they reach, and the
        frequency rules as Mautic lists them."""
        super().present(doc, out, ctx)
        out["frequencyRules"] = frequency_rules.shown(doc)
        out["points"] = points(doc)
        out["color"] = color(out["points"], ctx)

    def summary(self, doc: Doc, ctx: Context) -> Doc:
        """A contact where another resource names it (a note's `lead`): id, points, color, fields."""
        score = points(doc)
        return {
            "id": doc["id"],
            "points": score,
            "color": color(score, ctx),
            "fields": custom_values.grouped(self.object_name, doc, ctx),
        }

    def command(self, doc: Doc, command: search.Command, ctx: Context) -> bool | None:
        """The contact search commands: `is:anonymous`, `is:unowned`, `name:`, `tag:`, `owner:`, then fields."""
        values = doc.get("values") or {}
        if command.name == "is" and command.value.lower() in ("anonymous", "unowned"):
            return not doc.get("dateIdentified") if command.value.lower() == "anonymous" else not doc.get("owner")
        if command.name == "name":
            return any(
                search.like(values.get(f), command.value + "%", contains=False) for f in ("firstname", "lastname")
            )
        if command.name == "tag":
            return any(search.like(t["tag"], command.value, contains=False) for t in doc.get("tags") or [])
        if command.name == "owner":
            owner = references.referenced("user", [doc["owner"]], ctx).get(doc["owner"]) if doc.get("owner") else None
            pattern = command.value if "%" in command.value or command.strict else command.value + "%"
            return owner is not None and any(
                search.like(owner.get(k), pattern, contains=False) for k in ("username", "firstName", "lastName")
            )
        return super().command(doc, command, ctx)

    def email(self, doc: Doc) -> str | None:
        """The contact's email (the index of `email:` searches)."""
        return (doc.get("values") or {}).get("email")

    def fast_ids(self, node: search.Node | None, ctx: Context) -> Iterable[EntityId] | None:
        """Candidates an `email:` command then filters: from the email index (a prefix query)."""
        if not isinstance(node, search.Command) or node.name != "email":
            return None
        if not node.value.rstrip("%") or "%" in node.value.rstrip("%"):
            return None
        return store.ids_by_email(self.resource.kind, node.value.rstrip("%"))

    def sort_columns(self, ctx: Context) -> AbstractSet[str]:
        """Field aliases and the contact columns orderBy accepts."""
        return super().sort_columns(ctx) | CONTACT_COLUMNS


def _tag_names(raw: JSON) -> list[str]:
    """The names a `tags` value holds: names, a comma-separated string, or the tag objects a contact is
    read with (`{"id", "tag", "description"}`: a client that PUTs back what it read keeps its tags)."""
    names = raw.split(",") if isinstance(raw, str) else a.as_list(raw)
    names = [name.get("tag") if isinstance(name, dict) else name for name in names]
    if not all(isinstance(name, str) for name in names):
        raise a.Invalid("Tags are names (strings); prefix a name with '-' to remove it.")
    return [name.strip() for name in names if name.strip() not in ("", "-")]


def _change_tags(doc: Contact, write: Write) -> None:
    """Add the named tags, remove those prefixed with '-'; the others stay (compat 8.5). New tags
    get their ids in `finalize`, once the whole write is valid."""
    try:
        names = _tag_names(write.payload["tags"])
    except a.Invalid as error:
        write.errors["tags"] = [str(error)]
        return
    doc["tags"] = _tagged(
        doc.get("tags") or [], [n for n in names if not n.startswith("-")], [n[1:] for n in names if n.startswith("-")]
    )


def _tagged(tags: list[TagEntry], add: Iterable[str], remove: Iterable[str]) -> list[TagEntry]:
    """The tag list with the `remove` names gone and the `add` names there (new ones without an id)."""
    removed = {name.strip().lower() for name in remove}
    kept = [t for t in tags if t["tag"].lower() not in removed]
    present = {t["tag"].lower() for t in kept}
    for name in add:
        if name.lower() not in present:
            kept.append({"id": None, "tag": name, "description": None})
            present.add(name.lower())
    return kept


def _tag_ids(tags: list[TagEntry], ctx: Context) -> None:
    """Give tags without an id the id of the tag of that name, creating it if needed (looked up
    once per context: a worker batch tagging many contacts reads it once)."""
    known = ctx.cache.setdefault(cache_keys.TAG_IDS, {})
    for tag in tags:
        if tag["id"] is None:
            name = tag["tag"].lower()
            if name not in known:
                known[name] = (
                    store.lookup(TAG.kind, "tag", tag["tag"]) or service.create(TAG, {"tag": tag["tag"]}, ctx)[0]["id"]
                )
            tag["id"] = known[name]


def change_tags(doc: Contact, add: Iterable[JSON] | None, remove: Iterable[JSON] | None, ctx: Context) -> None:
    """Add and remove tags (names) on a contact document before it is stored (form actions, point
    triggers); missing tags are created."""
    names = [str(name).strip() for name in add or [] if str(name).strip()]
    doc["tags"] = _tagged(doc.get("tags") or [], names, [str(name) for name in remove or []])
    _tag_ids(doc["tags"], ctx)


def _add_ip_address(doc: Contact, write: Write) -> None:
    try:
        address = str(ipaddress.ip_address(str(write.payload["ipAddress"]).strip()))
    except ValueError:
        write.errors["ipAddress"] = ["This value is not a valid IP address."]
        return
    kept = ip_privacy.stored(address)  # truncated or dropped as ANONYMIZE_IP says
    entries = doc.get("ipAddresses") or []
    if kept is not None and all(entry["ipAddress"] != kept for entry in entries):
        doc["ipAddresses"] = entries + [{"id": None, "ipAddress": kept, "ipDetails": dict(IP_DETAILS)}]


def _stage_changed(doc: Contact, write: Write) -> Events:
    """A PUT without `stage` keeps the contact's stage (as Mautic's API); the `stage.changed` event
    of a payload that moves the contact (none when the stage it names does not exist: a 400)."""
    old = (write.existing or {}).get("stage")
    if write.mode == "put" and "stage" not in write.payload:
        doc["stage"] = old
    new = doc.get("stage")
    if new == old or "stage" in write.errors:
        return []
    named = new if new is not None else old
    stage = references.referenced("stage", [named], write.ctx).get(named)
    if stage is None and new is not None:
        return []
    return [contact_actions.stage_event(stage or {"id": old}, "API")]


def _sync_last_active(doc: Contact, write: Write) -> None:
    """`lastActive` and the `last_active` field are one value in two formats."""
    values = doc["values"]
    if "lastActive" in write.payload:
        values["last_active"] = (
            clock.parse(doc["lastActive"]).strftime("%Y-%m-%d %H:%M:%S") if doc.get("lastActive") else None
        )
    elif values.get("last_active"):
        doc["lastActive"] = clock.iso(clock.parse(values["last_active"]))
    else:
        doc["lastActive"] = None


def points(doc: Contact | None) -> int:
    """The contact document's points (0 for none, or no document)."""
    return int(((doc or {}).get("values") or {}).get("points") or 0)


def _points_set(doc: Contact, existing: Contact | None) -> Events:
    """The `point.gained` event of points an API payload writes (`existing` None on a create): a
    list of it, empty when they stay as they were."""
    old, new = points(existing), points(doc)
    if new == old:
        return []
    return [
        timeline.event(
            "point.gained",
            f"API set {new}",
            {"action": "API", "delta": new - old, "operator": "set", "oldPoints": old, "newPoints": new},
        )
    ]


def color(score: int, ctx: Context) -> str | None:
    """The colour of the highest published point trigger on the points (not on a point group) the
    points reach (None below all)."""
    triggers = ctx.memo(
        cache_keys.TRIGGER_COLORS,
        lambda: sorted(
            (
                (t.get("points") or 0, t.get("color"))
                for t in cached.documents("trigger", ctx)
                if t.get("isPublished") and t.get("color") and t.get("group") is None
            ),
            reverse=True,
        ),
    )
    return next((hue for threshold, hue in triggers if score >= threshold), None)


class CompanyHooks(_Valued):
    """Companies: values of the company fields (`companyname` required)."""

    object_name = "company"
