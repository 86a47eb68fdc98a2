"""Mautic's permission vocabulary: `bundle:level:permission` names, what a role's raw permissions
imply, and whether a set of granted permissions covers a name.

Two shapes, as Mautic's permission classes declare them: standard levels grant `view`, `edit`,
`create`, `delete`, (`publish`) and `full`; extended levels split view, edit, delete and publish
into `own` (documents the user created or owns) and `other`. A name asked in the other shape is
read as its synonym (`viewown` of a standard level is `view`, `view` of an extended one is
`viewown`), and `full` grants everything of its level.
"""

from collections.abc import Iterable, Mapping, Sequence

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.types import JSON

STANDARD = ("view", "edit", "create", "delete", "publish", "full")
STANDARD_NO_PUBLISH = ("view", "edit", "create", "delete", "full")
EXTENDED = (
    "viewown",
    "viewother",
    "editown",
    "editother",
    "create",
    "deleteown",
    "deleteother",
    "publishown",
    "publishother",
    "full",
)
EXTENDED_NO_PUBLISH = tuple(p for p in EXTENDED if not p.startswith("publish"))

# Every level of every bundle, with its permissions (Mautic 5's permission classes).
CATALOG = {
    "api:access": ("full",),
    "api:clients": STANDARD_NO_PUBLISH,
    "asset:categories": STANDARD,
    "asset:assets": EXTENDED,
    "campaign:categories": STANDARD,
    "campaign:campaigns": EXTENDED,
    "category:categories": STANDARD,
    "channel:categories": STANDARD,
    "channel:messages": EXTENDED,
    "config:config": ("full",),
    "core:themes": STANDARD,
    "dynamiccontent:categories": STANDARD,
    "dynamiccontent:dynamiccontents": EXTENDED,
    "email:categories": STANDARD,
    "email:emails": EXTENDED,
    "focus:categories": STANDARD,
    "focus:items": EXTENDED,
    "form:categories": STANDARD,
    "form:forms": EXTENDED,
    "form:export": ("enable",),
    "lead:leads": EXTENDED_NO_PUBLISH,
    "lead:lists": EXTENDED_NO_PUBLISH,
    "lead:fields": ("view", "full"),
    "lead:imports": STANDARD,
    "lead:export": ("enable",),
    "mauticSocial:categories": STANDARD,
    "mauticSocial:monitoring": STANDARD,
    "mauticSocial:tweets": EXTENDED,
    "notification:categories": STANDARD,
    "notification:notifications": EXTENDED,
    "notification:mobile_notifications": EXTENDED,
    "page:categories": STANDARD,
    "page:pages": EXTENDED,
    "page:preference_center": EXTENDED,
    "point:categories": STANDARD,
    "point:points": STANDARD,
    "point:triggers": STANDARD,
    "point:groups": STANDARD,
    "plugin:plugins": ("manage",),
    "report:reports": EXTENDED,
    "report:export": ("enable",),
    "sms:categories": STANDARD,
    "sms:smses": EXTENDED,
    "stage:categories": STANDARD,
    "stage:stages": STANDARD,
    "user:profile": ("editusername", "editemail", "editposition", "editname", "full"),
    "user:roles": STANDARD_NO_PUBLISH,
    "user:users": STANDARD_NO_PUBLISH,
    "webhook:categories": STANDARD,
    "webhook:webhooks": EXTENDED,
}

# What granting a permission brings with it (Mautic's analyzePermissions).
_IMPLIED = {
    "editother": ("viewother", "viewown"),
    "edit": ("view",),
    "publishother": ("viewother", "viewown"),
    "publish": ("view",),
    "deleteother": ("editother", "viewother", "viewown"),
    "delete": ("edit", "view"),
    "viewother": ("viewown",),
    "editown": ("viewown",),
    "deleteown": ("viewown",),
    "publishown": ("viewown",),
    "create": ("viewown", "view"),
}
_SYNONYMS = {
    "viewown": "view",
    "viewother": "view",
    "editown": "edit",
    "editother": "edit",
    "deleteown": "delete",
    "deleteother": "delete",
    "publishown": "publish",
    "publishother": "publish",
}


def _synonym(level: str, permission: str) -> str | None:
    """The name of `permission` in the shape `level` declares (as Mautic's getSynonym)."""
    offered = CATALOG[level]
    if permission in offered:
        return permission
    if permission in _SYNONYMS and _SYNONYMS[permission] in offered:
        return _SYNONYMS[permission]
    if f"{permission}own" in offered:
        return f"{permission}own"
    return None


def canonical(raw: JSON) -> dict[str, list[str]]:
    """{level: [permissions]} of a role's `rawPermissions` as given ({"email:emails": ["viewown"]},
    the same with a comma-separated string, or a list of "bundle:level:permission" names);
    a.Invalid naming the first unknown name."""
    if raw in (None, "", []):
        return {}
    if isinstance(raw, list):
        pairs = [_split(name) for name in raw]
    elif isinstance(raw, dict):
        pairs = [(level, permission) for level, permissions in raw.items() for permission in _names(permissions)]
    else:
        raise a.Invalid("This value should be an object of permission lists by bundle:level.")
    granted: dict[str, list[str]] = {}
    for level, permission in pairs:
        if level not in CATALOG or permission not in CATALOG[level]:
            raise a.Invalid(f"{level}:{permission} is not a permission.")
        held = granted.setdefault(level, [])
        if permission not in held:
            held.append(permission)
    return granted


def implied(raw: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    """The canonical `raw` permissions with those each one implies (Mautic's analyzePermissions)."""
    return {level: sorted(_with_implied(level, permissions)) for level, permissions in raw.items()}


def _split(name: JSON) -> tuple[str, str]:
    """(`bundle:level`, permission) of a `bundle:level:permission` name, or a.Invalid."""
    if not isinstance(name, str) or name.count(":") != 2:
        raise a.Invalid(f"{name} is not a bundle:level:permission name.")
    bundle, level, permission = name.split(":")
    return f"{bundle}:{level}", permission


def _names(permissions: JSON) -> list[str]:
    """The permissions of one level: a list, or a comma-separated string; else a.Invalid."""
    if isinstance(permissions, str):
        return [p.strip() for p in permissions.split(",") if p.strip()]
    if isinstance(permissions, list) and all(isinstance(p, str) for p in permissions):
        return permissions
    raise a.Invalid("Each bundle:level should list its permissions.")


def _with_implied(level: str, permissions: Iterable[str]) -> set[str]:
    """The permissions with every one they imply, transitively, in the level's shape."""
    found = set(permissions)
    pending = list(permissions)
    while pending:
        for implied in _IMPLIED.get(pending.pop(), ()):
            name = _synonym(level, implied)
            if name and name not in found:
                found.add(name)
                pending.append(name)
    return found


def known(name: str) -> bool:
    """True when `name` is a `bundle:level:permission` of the catalog (synonyms included)."""
    level, _, permission = name.rpartition(":")
    return offers(level, permission)


def granted(permissions: Mapping[str, Sequence[str]], name: str) -> bool:
    """True when the normalized `permissions` grant `name` (`bundle:level:permission`)."""
    level, _, permission = name.rpartition(":")
    held = permissions.get(level) or ()
    if not held or level not in CATALOG:
        return False
    return "full" in held or _synonym(level, permission) in held


def offers(level: str, permission: str) -> bool:
    """True when `level` has `permission` in some shape (`publish` for `publishown`...)."""
    return level in CATALOG and _synonym(level, permission) is not None


def extended(level: str | None) -> bool:
    """True for a level with own/other permissions."""
    return level is not None and "viewown" in CATALOG.get(level, ())
