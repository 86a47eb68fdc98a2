"""The properties form submit actions need, checked when a form is saved (a 400 naming
`actions[<n>][properties][<name>]`): a URL to repost to, an existing asset or email, users to
notify, recipients with valid addresses, a non-zero whole score, an existing stage or point group.
Also the readers of those properties that the actions share (addresses, yes/no flags, the chosen
email)."""

import re
from collections.abc import Callable, Iterable
from urllib.parse import urlparse

from chalicelib.domain.contacts import contact_actions
from chalicelib.domain.kernel import access, references, registry
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.addresses import normalized
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc

HEADER_NAME = r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"


def check(actions: Iterable[Doc] | None, errors: dict[str, list[str]], ctx: Context) -> None:
    """Add to `errors` (keyed `actions[<n>][properties][<name>]`) what the actions' properties lack."""
    for index, action in enumerate(actions or []):
        checker = CHECKS.get(str(action.get("type")))
        found = checker(action.get("properties") or {}, ctx) if checker else {}
        for name, message in found.items():
            errors[f"actions[{index}][properties][{name}]"] = [message]


def addresses(value: JSON, strict: bool = False) -> list[str]:
    """The valid addresses of a comma-separated list; with `strict`, ValueError names an invalid one."""
    found: list[str] = []
    for part in str(value or "").split(","):
        if part.strip():
            address = normalized(part.strip())
            if address is not None:
                found.append(address)
            elif strict:
                raise ValueError(f"'{part.strip()}' is not a valid email address.")
    return found


def _address_errors(props: Doc, names: Iterable[str]) -> dict[str, str]:
    errors: dict[str, str] = {}
    for name in names:
        try:
            addresses(props.get(name), strict=True)
        except ValueError as error:
            errors[name] = str(error)
    return errors


def flag(props: Doc, name: str, default: bool = False) -> bool:
    """A yes/no property (true, 1, "yes"...; anything else is no), `default` when absent."""
    if props.get(name) in (None, ""):
        return default
    try:
        return a.as_bool(props[name])
    except a.Invalid:
        return False


def _existing(kind: str, value: JSON, ctx: Context, noun: str) -> str | None:
    """None when `value` names an existing document of `kind`, else the error message."""
    entity_id = a.id_or_none(value)
    if entity_id is None:
        return f"Choose the {noun} (its id)."
    return None if references.referenced(kind, [entity_id], ctx) else f"No {noun} found with id {entity_id}."


def email_of(props: Doc) -> JSON:
    """The email an email action sends: `useremail.email` (to users) or `email`."""
    chosen = props.get("useremail")
    return chosen.get("email") if isinstance(chosen, dict) else props.get("email")


def _check_repost(props: Doc, ctx: Context) -> dict[str, str]:
    url = str(props.get("post_url") or "").strip()
    parts = urlparse(url)
    errors = (
        {}
        if parts.scheme in ("http", "https") and parts.hostname
        else {"post_url": "A URL to post the results to (http or https) is required."}
    )
    header = str(props.get("authorization_header") or "")
    name, colon, _value = header.partition(":")
    if "\r" in header or "\n" in header or (colon and not re.match(HEADER_NAME, name.strip())):
        errors["authorization_header"] = "A header is one line: `Name: value`, or the value of Authorization."
    return dict(errors, **_address_errors(props, ("failure_email",)))


def _check_asset(props: Doc, ctx: Context) -> dict[str, str]:
    message = _existing("asset", props.get("asset"), ctx, "asset")
    return {"asset": message} if message else {}


def _check_email_to_contact(props: Doc, ctx: Context) -> dict[str, str]:
    message = _existing("email", props.get("email"), ctx, "email")
    return {"email": message} if message else {}


def _check_email_to_users(props: Doc, ctx: Context) -> dict[str, str]:
    errors: dict[str, str] = {}
    message = _existing("email", email_of(props), ctx, "email")
    if message:
        errors["useremail" if isinstance(props.get("useremail"), dict) else "email"] = message
    wanted = a.ids_in(props.get("user_id"))
    missing = sorted(wanted - set(references.referenced("user", sorted(wanted), ctx)))
    if not wanted or missing:
        errors["user_id"] = (
            f"No user found with id {', '.join(map(str, missing))}."
            if missing
            else "Choose the users to send the email to (their ids)."
        )
    return errors


def _check_results_email(props: Doc, ctx: Context) -> dict[str, str]:
    errors = _address_errors(props, ("to", "cc", "bcc"))
    named = any(str(props.get(n) or "").strip() for n in ("to", "cc", "bcc"))
    if not named and not flag(props, "copy_lead") and not flag(props, "email_to_owner"):
        errors.setdefault("to", "Name at least one recipient (to, cc, bcc, copy_lead or email_to_owner).")
    return errors


def _check_score(props: Doc, ctx: Context) -> dict[str, str]:
    try:
        score = a.as_int(props.get("score"))
    except a.Invalid:
        score = 0
    return {} if score else {"score": "A whole number other than 0 is required."}


def _check_stage(props: Doc, ctx: Context) -> dict[str, str]:
    if contact_actions.named_stage(props.get("stage"), ctx) is None:
        return {"stage": "Choose an existing stage (its id)."}
    return {}


def _check_points(props: Doc, ctx: Context) -> dict[str, str]:
    """`lead.pointschange` with `group`: an existing point group the caller may view (403 otherwise:
    the form then moves its scores)."""
    if props.get("group") in (None, ""):
        return {}
    wanted = a.id_or_none(props.get("group"))
    group = references.referenced("pointgroup", [wanted], ctx).get(wanted) if wanted is not None else None
    if group is None:
        return {"group": "Choose an existing point group (its id), or none for the contact's points."}
    access.require(ctx, registry.resource("pointgroup"), Action.VIEW, group)
    return {}


def _check_tags(props: Doc, ctx: Context) -> dict[str, str]:
    """`lead.changetags`: `add_tags` / `remove_tags` kept as tag names, as Mautic answers them
    (FormApiControllerFunctionalTest::testFormWithChangeTagsAction): an id becomes its tag's name,
    a name stays (the action creates it); an id of no tag the caller may view is refused."""
    errors: dict[str, str] = {}
    for name in ("add_tags", "remove_tags"):
        items = [props[name]] if isinstance(props.get(name), (str, int)) else props.get(name)
        if not isinstance(items, list):
            continue
        ids = [int(i) for i in items if isinstance(i, int) or (isinstance(i, str) and i.isdigit())]
        found = references.referenced("tag", ids, ctx)
        visible = {
            i: t["tag"] for i, t in found.items() if access.allowed(ctx, registry.resource("tag"), Action.VIEW, t)
        }
        missing = [i for i in ids if i not in visible]
        if missing:
            errors[name] = f"No tag found with id {missing[0]}."
        props[name] = [visible.get(int(i), i) if str(i).isdigit() else str(i).strip() for i in items if str(i).strip()]
    return errors


CHECKS: dict[str, Callable[[Doc, Context], dict[str, str]]] = {
    "lead.changetags": _check_tags,
    "lead.pointschange": _check_points,
    "form.repost": _check_repost,
    "asset.download": _check_asset,
    "email.send.lead": _check_email_to_contact,
    "email.send.user": _check_email_to_users,
    "form.email": _check_results_email,
    "lead.scorecontactscompanies": _check_score,
    "stage.change": _check_stage,
}
