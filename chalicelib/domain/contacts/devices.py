"""Contact devices (Mautic's lead devices): what a User-Agent says about the device a contact used.

`POST /contacts/<id>/utm/add` with `useragent` records the device on the contact document
(`devices`) unless the contact already has one of the same type, brand and model (Mautic's rule:
a second desktop browser is the same desktop). The User-Agent is parsed by `ua-parser` (the
uap-core patterns); Mautic's Matomo parser names more things than it does, so:

* `device` is the device type: `smartphone`, `tablet` (iPad, Kindle, Android tablets), `desktop`
  (no handset found but an operating system was) or None (unknown, bots);
* `deviceBrand` and `deviceModel` are uap-core's (None for its generic placeholders);
* `deviceOsName` and `deviceOsVersion` are uap-core's; `deviceOsShortName`, `deviceOsPlatform` and
  `deviceFingerprint` stay None;
* `clientInfo` is `{"name", "version"}` of the browser or client.

No timeline event: Mautic records none for a new device.

The contact document stays the home of its devices (a hit reads it anyway, so the "already has
it" check costs nothing, and `GET /contacts/<id>/devices` is its one GetItem). Each device is also
mirrored as an entity of kind `device` (its fields and `lead`), put or deleted by the contact's
`consequences` hook in the transaction that writes the contact (`mirror_items`), so `/api/devices`
gets one by id with a GetItem and lists them in id order a page at a time. The `device` count
moves in the same transaction (a `store.Tally` derived item, when a write adds or removes devices).
Writes through `/api/devices` are contact writes: `create`, `edit` and `delete` change the entry
in the contact document (moving `lead` is two contact writes, the old contact's first).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.contacts.of_contact import OfContact
from chalicelib.domain.kernel import access, references, registry, service, validation
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.resources import Resource, Write
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store import port as store
from chalicelib.store.port import Derived, EntityId

if TYPE_CHECKING:  # imported lazily at run time (`_parse`)
    import ua_parser

TABLETS = ("iPad", "Kindle")
PLACEHOLDER_BRANDS = ("Generic", "Generic_Android", "Generic_Android_Tablet", "Generic_Inettv", "Spider")
KIND = "device"
KEYS = (
    "id",
    "lead",
    "clientInfo",
    "device",
    "deviceBrand",
    "deviceModel",
    "deviceOsName",
    "deviceOsShortName",
    "deviceOsVersion",
    "deviceOsPlatform",
    "deviceFingerprint",
    "dateAdded",
)


@lru_cache(maxsize=256)
def _parse(user_agent: str) -> ua_parser.Result:
    import ua_parser  # loads the uap-core patterns: paid by the first User-Agent only

    return ua_parser.parse(user_agent)


def _version(part: ua_parser.UserAgent | ua_parser.OS | None) -> str | None:
    numbers = [part.major, part.minor, part.patch] if part else []
    return ".".join(n for n in numbers if n) or None


def _device_type(device: ua_parser.Device | None, os: ua_parser.OS | None) -> str | None:
    if device is None or device.family in ("Other", "Mac"):
        return "desktop" if os is not None else None
    if device.family == "Spider":
        return None
    tablet = device.brand == "Generic_Android_Tablet" or any(name in device.family for name in TABLETS)
    return "tablet" if tablet else "smartphone"


def parse(user_agent: str) -> Doc:
    """The device fields (all but id, lead and dateAdded) a User-Agent string gives."""
    found = _parse(user_agent)
    device, os, client = found.device, found.os, found.user_agent
    known_brand = device is not None and device.brand not in PLACEHOLDER_BRANDS
    return {
        "clientInfo": {"name": client.family, "version": _version(client)} if client else {},
        "device": _device_type(device, os),
        "deviceBrand": device.brand if known_brand and device is not None else None,
        "deviceModel": device.model if device is not None and device.family != "Spider" else None,
        "deviceOsName": os.family if os else None,
        "deviceOsShortName": None,
        "deviceOsVersion": _version(os),
        "deviceOsPlatform": None,
        "deviceFingerprint": None,
    }


def _same(entry: Doc, parsed: Doc) -> bool:
    return all(entry.get(key) == parsed[key] for key in ("device", "deviceBrand", "deviceModel"))


def record(doc: Contact, user_agent: JSON, date_added: str) -> bool:
    """Add the device of a User-Agent to a contact document unless it has that device already;
    True when one was added."""
    parsed = parse(str(user_agent))
    if any(_same(entry, parsed) for entry in doc.get("devices") or []):
        return False
    doc["devices"] = (doc.get("devices") or []) + [
        dict(parsed, id=store.allocate_ids("device")[0], dateAdded=date_added)
    ]
    return True


def of_contact(resource: Resource, contact_id: EntityId) -> Doc:
    """`{"total", "devices": [...]}` (compat 1.8): the contact's devices, oldest first."""
    doc = service.load(resource, contact_id)
    rows = [dict({key: entry.get(key) for key in KEYS}, lead=doc["id"]) for entry in doc.get("devices") or []]
    return {"total": len(rows), "devices": rows}


def _entries(doc: Contact | None) -> dict[int, Doc]:
    return {entry["id"]: entry for entry in (doc or {}).get("devices") or []}


def _mirror(entry: Doc, contact_id: EntityId) -> Doc:
    return dict({key: entry.get(key) for key in KEYS}, lead=contact_id)


def mirror_items(doc: Contact | None, existing: Contact | None) -> list[Derived]:
    """Derived items keeping the `device` entities equal to a contact's devices (`doc` None: the
    contact is deleted): the changed or new ones put, the removed ones deleted, and the count of
    devices moved by the difference, all in the contact's transaction."""
    new, old = _entries(doc), _entries(existing)
    items: list[Derived] = [(KIND, device_id, None) for device_id in old if device_id not in new]
    if doc is not None:  # else `new` is empty
        items += [
            (KIND, device_id, _mirror(entry, doc["id"]))
            for device_id, entry in new.items()
            if old.get(device_id) != entry
        ]
    delta = len(new) - len(old)
    return items + ([(KIND, 0, store.Tally(delta))] if delta else [])


def _contact(contact_id: EntityId, ctx: Context) -> Doc:
    """The contact, as the request read it (checking `lead`) or afresh after a retry."""
    found = references.referenced("contact", [contact_id], ctx).get(contact_id)
    if found is None:
        raise NotFound()
    return found


def _store_on_contact(contact: Doc, change: Callable[[list[Doc]], list[Doc]], ctx: Context) -> None:
    """Write `change(devices)` (the new device list) on the contact, without an edit stamp: an edit
    of the contact, which the caller must be allowed."""
    access.require(ctx, registry.resource("contact"), Action.EDIT, contact)
    doc = copy.deepcopy(contact)
    doc["devices"] = change(list(doc.get("devices") or []))
    service.save_change(registry.resource("contact"), contact, doc, ctx, stamp=False)


def _fields(doc: Doc) -> Doc:
    return {key: doc.get(key) for key in KEYS if key not in ("id", "lead")}


def create(resource: Resource, payload: JSON, ctx: Context) -> tuple[Doc, bool]:
    """A device written through `/api/devices/new`, stored on its contact (`lead` or `contact`):
    (device, True)."""
    doc = service.blank(resource)
    validation.validated(resource, doc, payload, ctx, "create")

    def attempt() -> Doc:
        entry = dict(_fields(doc), id=doc.get("id") or store.allocate_ids(KIND)[0], dateAdded=ctx.now)
        doc["id"] = entry["id"]
        _store_on_contact(_contact(doc["lead"], ctx), lambda rows: rows + [entry], ctx)
        return _mirror(entry, doc["lead"])

    return service.retrying(attempt, ctx), True


def edit(resource: Resource, device_id: EntityId, payload: JSON, ctx: Context, replace: bool) -> tuple[Doc, bool]:
    """PATCH or PUT (which creates a missing device) through `/api/devices/<id>/edit`: (device, created)."""
    try:
        existing = service.load(resource, device_id)
    except NotFound:
        if not replace:
            raise
        return create(resource, payload, ctx)
    doc = service.blank(resource) if replace else copy.deepcopy(existing)
    doc.update({"id": existing["id"], "dateAdded": existing.get("dateAdded")})
    validation.validated(resource, doc, payload, ctx, "put" if replace else "patch", existing)
    entry = dict(_fields(doc), id=existing["id"], dateAdded=existing.get("dateAdded"))

    def attempt() -> Doc:
        if doc["lead"] != existing["lead"]:
            _store_on_contact(_contact(existing["lead"], ctx), lambda rows: _without(rows, entry["id"]), ctx)
            _store_on_contact(_contact(doc["lead"], ctx), lambda rows: rows + [entry], ctx)
        else:
            _store_on_contact(_contact(doc["lead"], ctx), lambda rows: _replaced(rows, entry), ctx)
        return _mirror(entry, doc["lead"])

    return service.retrying(attempt, ctx), False


def delete(resource: Resource, device_id: EntityId, ctx: Context) -> Doc:
    """Remove a device from its contact; the device as it was."""
    existing = service.load(resource, device_id)
    service.retrying(
        lambda: _store_on_contact(_contact(existing["lead"], ctx), lambda rows: _without(rows, existing["id"]), ctx),
        ctx,
    )
    return existing


def _without(rows: list[Doc], device_id: EntityId) -> list[Doc]:
    return [row for row in rows if row.get("id") != device_id]


def _replaced(rows: list[Doc], entry: Doc) -> list[Doc]:
    return [entry if row.get("id") == entry["id"] else row for row in rows]


class DeviceHooks(OfContact):
    """Devices: `contact` names the contact when `lead` does not (Mautic's DeviceApiController)."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """`contact` names the contact when `lead` does not; one of them is required."""
        if doc.get("lead") is None and write.payload.get("contact") not in (None, ""):
            try:
                doc["lead"] = a.as_id(write.payload["contact"])
            except a.Invalid as error:
                write.errors["contact"] = [str(error)]
        if doc.get("lead") is None and not write.errors:
            write.errors["lead"] = ["contact ID is mandatory"]
