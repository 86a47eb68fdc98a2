"""The users step of a move-in with its invitations: Mautic never gives a password, so each user the
move creates here (not one matched by username to a user already here) is emailed an invitation to
choose one, through the destination's administrator-only `POST /movein/users/<id>/invite`.

Who is to be invited is recorded before the users are copied, in the mapping kind `invitation`
(`from` the source user's id; `to` its own id and `modified` "pending" until the invitation is sent,
then the new user's id and "sent"), so a run killed between a user's creation and its invitation
invites them on the rerun, and no rerun invites anyone twice (the endpoint too sends once per user).
`--no-invite` records and sends nothing; a dry run counts the invitations it would send."""

from __future__ import annotations

from chalicelib.movein import copier, source
from chalicelib.movein.client import ApiFailure
from chalicelib.movein.kinds import Kind
from chalicelib.movein.run import Run, Timer

KIND = "invitation"
PENDING, SENT = "pending", "sent"


def copy_users(run: Run, kind: Kind, invite: bool = True) -> None:
    """Copy the users (`kind`), inviting each new one unless `invite` is False."""
    if invite:
        _plan(run, kind)
    copier.copy(run, kind)
    if invite and not run.dry_run:
        with Timer(run, KIND):
            run.each(lambda s=source_id: _invite(run, s) for source_id in _pending(run))  # type: ignore[misc]


def _plan(run: Run, kind: Kind) -> None:
    """Record as pending the source users this run will create: not copied before and with no user
    here of their username (a dry run counts them only)."""
    mapping, invitations = run.mapping(kind.name), run.mapping(KIND)
    here = {
        str(doc.get("username") or "").lower()
        for page in source.pages(run.target, kind.target, kind.keys)
        for doc in page
    }
    new = [
        int(doc["id"])
        for page in source.pages(run.source, kind.source, kind.keys)
        for doc in page
        if mapping.get(doc["id"]) is None
        and invitations.get(doc["id"]) is None
        and str(doc.get("username") or "").lower() not in here
    ]
    if run.dry_run:
        run.report.count(KIND, "found", len(new))
        run.report.count(KIND, "copied", len(new))
        return
    run.remember(KIND, [(source_id, source_id, PENDING) for source_id in new])


def _pending(run: Run) -> list[int]:
    """The source ids of the users whose invitation is not sent yet."""
    invitations = run.mapping(KIND)
    return sorted(source_id for source_id, (_, state) in invitations.entries.items() if state == PENDING)


def _invite(run: Run, source_id: int) -> None:
    """Invite the copy of one source user; recorded as sent (or counted as failed, pending still)."""
    run.report.count(KIND, "found")
    new_id = run.mapping("user").get(source_id)
    if new_id is None:
        run.report.count(KIND, "skipped", reason="the user was not copied (see users): invited once copied")
        return
    try:
        answer = run.target.call("POST", f"/movein/users/{new_id}/invite")
    except ApiFailure as failure:
        run.report.count(KIND, "failed", reason=str(failure))
        return
    run.remember(KIND, [(source_id, new_id, SENT)])
    if answer.get("invited") is False:
        run.report.count(KIND, "skipped", reason="invited before")
    else:
        run.report.count(KIND, "copied")
