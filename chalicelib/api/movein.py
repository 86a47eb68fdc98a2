"""The id mapping of a move-in from Mautic (docs/move-in.md), for administrators only: `GET
/movein/mappings/<kind>?after=N` (pages of chunks) and `POST /movein/mappings/<kind>` (`{"entries":
[{from, to, modified}]}`). A restricted caller gets 403 and learns nothing, not even whether a mapping
exists. `POST /movein/journeys/<contact>` sets a moved contact's automation memberships and event log
(`domain/automations/journey_import.py`): nothing runs, nothing is sent. `POST /movein/users/<id>/invite`
emails a moved user the invitation to choose a password (`auth/resets.py`), once per user."""

from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import ADMINISTRATOR
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.auth import resets
from chalicelib.domain.automations import journey_import
from chalicelib.domain.kernel import moved_ids
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import invalid

routes = Routes("movein")


@routes.route("/movein/mappings/{kind}", "GET", access=(ADMINISTRATOR,))
def read(request: ApiRequest, ctx: Context, kind: str) -> Answer:
    """One page of the mapping of `kind`."""
    after = str(request.query.get("after") or "0")
    if not after.isdigit():
        raise invalid("after", "after is the `next` of the previous page, a non-negative integer")
    return moved_ids.chunks(kind, int(after))


@routes.route("/movein/mappings/{kind}", "POST", access=(ADMINISTRATOR,))
def write(request: ApiRequest, ctx: Context, kind: str) -> Answer:
    """Store one chunk of the mapping of `kind` (201)."""
    body = request.body
    return Reply(moved_ids.record(kind, body.get("entries") if isinstance(body, dict) else None), 201)


@routes.route("/movein/journeys/{contact_id}", "POST", access=(ADMINISTRATOR,))
def journeys(request: ApiRequest, ctx: Context, contact_id: str) -> Answer:
    """Store a moved contact's journeys: its memberships, what ran and what is scheduled."""
    return journey_import.store(contact_id, request.body, ctx)


@routes.route("/movein/users/{user_id}/invite", "POST", access=(ADMINISTRATOR,))
def invite(request: ApiRequest, ctx: Context, user_id: str) -> Answer:
    """Email the user the invitation to choose a password: `{"user": id, "invited": true}` (201), or
    `"invited": false` (200) when they were invited before, nothing sent again."""
    invitation = resets.invite(user_id, ctx)
    body = {"user": invitation.user_id, "invited": invitation.sent}
    return Reply(body, 201 if invitation.sent else 200)


blueprint = routes.blueprint()
