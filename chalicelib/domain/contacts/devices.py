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
"""
from functools import lru_cache

from chalicelib.domain.kernel import service
from chalicelib.store import entities as store

TABLETS = ("iPad", "Kindle")
PLACEHOLDER_BRANDS = ("Generic", "Generic_Android", "Generic_Android_Tablet", "Generic_Inettv", "Spider")
KEYS = ("id", "lead", "clientInfo", "device", "deviceBrand", "deviceModel", "deviceOsName", "deviceOsShortName",
        "deviceOsVersion", "deviceOsPlatform", "deviceFingerprint", "dateAdded")


@lru_cache(maxsize=256)
def _parse(user_agent):
    import ua_parser  # loads the uap-core patterns: paid by the first User-Agent only
    return ua_parser.parse(user_agent)


def _version(part):
    numbers = [part.major, part.minor, part.patch] if part else []
    return ".".join(n for n in numbers if n) or None


def _device_type(device, os):
    if device is None or device.family in ("Other", "Mac"):
        return "desktop" if os is not None else None
    if device.family == "Spider":
        return None
    tablet = device.brand == "Generic_Android_Tablet" or any(name in device.family for name in TABLETS)
    return "tablet" if tablet else "smartphone"


def parse(user_agent):
    """The device fields (all but id, lead and dateAdded) a User-Agent string gives."""
    found = _parse(user_agent)
    device, os, client = found.device, found.os, found.user_agent
    known_brand = device is not None and device.brand not in PLACEHOLDER_BRANDS
    return {"clientInfo": {"name": client.family, "version": _version(client)} if client else {},
            "device": _device_type(device, os), "deviceBrand": device.brand if known_brand else None,
            "deviceModel": device.model if device is not None and device.family != "Spider" else None,
            "deviceOsName": os.family if os else None, "deviceOsShortName": None, "deviceOsVersion": _version(os),
            "deviceOsPlatform": None, "deviceFingerprint": None}


def _same(entry, parsed):
    return all(entry.get(key) == parsed[key] for key in ("device", "deviceBrand", "deviceModel"))


def record(doc, user_agent, date_added):
    """Add the device of a User-Agent to a contact document unless it has that device already;
    True when one was added."""
    parsed = parse(str(user_agent))
    if any(_same(entry, parsed) for entry in doc.get("devices") or []):
        return False
    doc["devices"] = (doc.get("devices") or []) + [dict(parsed, id=store.allocate_ids("device")[0],
                                                        dateAdded=date_added)]
    return True


def of_contact(resource, contact_id):
    """`{"total", "devices": [...]}` (compat 1.8): the contact's devices, oldest first."""
    doc = service.load(resource, contact_id)
    rows = [dict({key: entry.get(key) for key in KEYS}, lead=doc["id"]) for entry in doc.get("devices") or []]
    return {"total": len(rows), "devices": rows}
