"""Mautic's campaign paths and keys, as aliases of the automation routes (issue 34).

The spec renames campaigns to automations, but every existing Mautic client calls `/api/campaigns...`
and reads `campaign` / `campaigns`. Each automation route answers under Mautic's path too:
`/campaigns`, `/campaigns/{id}`, new, edit, delete, batch (a copy of the automation declaration with
Mautic's prefix and keys, so `Location` and `Link` name the campaign paths), and every route of
`api/automations.py` with `automations` spelled `campaigns` in its path (`/contacts/{id}/campaigns`
too). An alias runs the automation route's very handler with the same needs (campaign:campaigns) and
answers with its keys renamed: `automation` / `automations` at the top of the answer and in the
objects directly under it (an event's `automation`, a membership's), nothing deeper, so stored event
properties stay as sent. Request bodies need no renaming: Mautic's carry the fields at their top.
`/api/automations` is unchanged. Mautic 2's membership paths (`/campaigns/{id}/contact/add/{leadId}`,
`.../remove/{leadId}`, which Mautic 3 dropped and 2.x clients still call) run the add and remove.
"""

from collections.abc import Mapping
from dataclasses import replace
from functools import wraps
from typing import Any

from chalicelib.api import automations, batch, standard
from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import Answer, Handler, Reply, Routes
from chalicelib.domain.automations.declarations import AUTOMATION
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON

CAMPAIGN = replace(AUTOMATION, prefix="campaigns", singular="campaign", plural="campaigns")
KEYS = {"automation": "campaign", "automations": "campaigns"}

routes = Routes("campaigns")
standard.install(routes, CAMPAIGN)
batch.install(routes, CAMPAIGN)


def alias_path(path: str) -> str:
    """Mautic's spelling of an automation path: `/automations` segments become `/campaigns`."""
    return "/".join("campaigns" if part == "automations" else part for part in path.split("/"))


def _renamed(value: Mapping[str, Any]) -> dict[str, Any]:
    """`value` with its automation keys spelled as Mautic does."""
    return {KEYS.get(key, key): item for key, item in value.items()}


def _child(value: JSON) -> JSON:
    """An object directly under the answer (or each object of a list there), its keys renamed."""
    if isinstance(value, dict):
        return _renamed(value)
    if isinstance(value, list):
        return [_renamed(item) if isinstance(item, dict) else item for item in value]
    return value


def as_campaign(body: JSON) -> JSON:
    """An automation answer in Mautic's keys: the top level and the objects directly under it."""
    if not isinstance(body, dict):
        return body
    return {KEYS.get(key, key): _child(item) for key, item in body.items()}


def _reply(answer: Answer) -> Answer:
    """The automation route's answer with Mautic's keys, its `Location` on the campaign path."""
    if not isinstance(answer, Reply):
        return as_campaign(answer)
    headers = dict(answer.headers)
    if isinstance(headers.get("Location"), str):
        headers["Location"] = headers["Location"].replace("/api/automations/", "/api/campaigns/")
    return replace(answer, body=as_campaign(answer.body), headers=headers)


def _alias(handler: Handler) -> Handler:
    """The automation `handler`, answering in Mautic's keys."""

    @wraps(handler)
    def campaign_handler(request: ApiRequest, ctx: Context, **params: str) -> Answer:
        return _reply(handler(request, ctx, **params))

    return campaign_handler


for _path, _handlers in automations.routes.table.items():
    for _method, _handler in _handlers.items():
        routes.route(alias_path(_path), _method, access=automations.routes.needs[_path][_method])(_alias(_handler))

for _verb in ("add", "remove"):
    _current = f"/automations/{{id}}/contact/{{contact_id}}/{_verb}"
    routes.route(
        f"/campaigns/{{id}}/contact/{_verb}/{{contact_id}}", "POST", access=automations.routes.needs[_current]["POST"]
    )(_alias(automations.routes.table[_current]["POST"]))

blueprint = routes.blueprint()
