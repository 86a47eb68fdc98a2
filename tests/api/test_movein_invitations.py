"""move-in's users step in process (chalicelib/movein/invitations.py): each user the move creates here is
emailed an invitation to choose a password, once, across reruns and a run killed halfway; users matched
to one here are not; `--no-invite` and a dry run send nothing. The source is a Mautic holding roles and
users only; the destination is this service in process."""

import json
from urllib.parse import urlencode

import pytest

from chalicelib.movein import mover
from chalicelib.movein.client import ApiFailure
from chalicelib.movein.run import Run
from chalicelib.ports import adapters
from tests.api.test_password_reset import NEW_PASSWORD, basic, post, token_of

ROLES = [
    {"id": 1, "name": "Administrator", "isAdmin": True, "rawPermissions": {}},
    {"id": 2, "name": "Sales", "isAdmin": False, "rawPermissions": {"lead:leads": ["viewown"]}},
]
PEOPLE = [("admin", 1), ("sam", 2), ("kim", 2), ("june", 2)]  # admin and june exist here already


class Mautic:
    """A Mautic answering its roles and users (Mautic 4's shapes: `total` a string, keyed by id), and
    empty lists for everything else."""

    def __init__(self, people=PEOPLE):
        self.users = {
            str(n): {
                "id": n,
                "username": name,
                "firstName": name.title(),
                "lastName": "Moved",
                "email": f"{name}@example.com",
                "role": {"id": role, "name": ROLES[role - 1]["name"]},
                "isPublished": True,
                "dateModified": "2026-01-01T00:00:00+00:00",
            }
            for n, (name, role) in enumerate(people, start=1)
        }

    def call(self, method, path, body=None, query=None, key=""):
        start = int((query or {}).get("start") or 0)
        if path == "/users":
            return {"total": str(len(self.users)), "users": self.users if start == 0 else []}
        if path == "/roles":
            return {"total": "2", "roles": {str(r["id"]): r for r in ROLES} if start == 0 else []}
        return {"total": "0"}


class Here:
    """The service in process, as the mover's destination API; `interrupt` names a path whose next
    POST stops the run (as a kill would)."""

    def __init__(self, api, interrupt=None):
        self.api, self.interrupt = api, interrupt

    def call(self, method, path, body=None, query=None, key=""):
        if self.interrupt and method == "POST" and path.startswith(self.interrupt):
            self.interrupt = None
            raise RuntimeError("killed")
        headers = {"Idempotency-Key": key} if key else {}
        answer = self.api.call(method, "/api" + path + (f"?{urlencode(query)}" if query else ""), body, headers)
        if answer.status_code >= 400:
            raise ApiFailure(method, path, answer.status_code, json.dumps(answer.json))
        return answer.json


def _move(api, dry_run=False, invite=True, target=None, source=None):
    run = Run(source or Mautic(), target or Here(api), dry_run=dry_run, workers=2, progress=None)
    return mover.move(run, invite=invite)


def _invitations():
    return sorted(m.mail.to for m in adapters.active().mail.sent if m.mail.subject.startswith("Your invitation"))


def _mapping(api, kind):
    chunks = api.get(f"/api/movein/mappings/{kind}").json["chunks"]
    return {e["from"]: (e["to"], e["modified"]) for chunk in chunks for e in chunk["entries"]}


@pytest.fixture
def june(api):
    answer = api.post(
        "/api/users/new",
        {
            "username": "june",
            "firstName": "June",
            "lastName": "Here",
            "email": "june@example.com",
            "role": 1,
            "plainPassword": {"password": NEW_PASSWORD, "confirm": NEW_PASSWORD},
        },
    )
    assert answer.status_code == 201, answer.json
    return answer.json["user"]["id"]


def test_new_users_are_invited_once_matched_ones_never_and_a_dry_run_sends_nothing(api, june):
    dry = _move(api, dry_run=True)
    assert dry.kinds["invitation"].copied == 2 and "would be sent: 2" in dry.summary()
    assert _invitations() == [] and api.get("/api/users").json["total"] in (2, "2")
    report = _move(api)
    assert (report.kinds["user"].copied, report.kinds["user"].skipped) == (2, 2)
    assert report.kinds["invitation"].copied == 2 and report.kinds["invitation"].failed == 0
    assert "Invitations to choose a password sent: 2" in report.summary()
    assert _invitations() == ["kim@example.com", "sam@example.com"]
    users = _mapping(api, "user")
    assert _mapping(api, "invitation") == {2: (users[2][0], "sent"), 3: (users[3][0], "sent")}
    again = _move(api)
    assert _invitations() == ["kim@example.com", "sam@example.com"]  # nobody twice
    assert again.kinds["invitation"].found == 0 and again.kinds["user"].copied == 0
    # the invitation's link works: sam chooses a password and signs in with it
    (sam,) = (m for m in adapters.active().mail.sent if m.mail.to == "sam@example.com")
    fields = {"token": token_of(sam), "password": NEW_PASSWORD, "confirm": NEW_PASSWORD}
    assert post(api, "/passwordresetconfirm", fields).status_code == 200
    assert basic(api, "sam", NEW_PASSWORD).status_code == 200


def test_a_run_killed_between_creating_users_and_inviting_them_invites_them_on_the_rerun(api):
    with pytest.raises(RuntimeError, match="killed"):
        _move(api, target=Here(api, interrupt="/movein/users/"))
    sent_before = _invitations()
    assert len(sent_before) < 3 and len(_mapping(api, "user")) == 4  # all copied (admin matched), not all invited
    report = _move(api)
    assert report.kinds["invitation"].copied == 3 - len(sent_before) and report.kinds["user"].copied == 0
    assert _invitations() == ["june@example.com", "kim@example.com", "sam@example.com"]  # each once


def test_no_invite_sends_nothing_and_a_later_run_does_not_invite_those_users(api):
    report = _move(api, invite=False)
    assert report.kinds["user"].copied == 3 and "invitation" not in report.kinds
    assert _invitations() == [] and _mapping(api, "invitation") == {}
    more = Mautic(PEOPLE + [("lee", 2)])
    later = _move(api, source=more)
    assert later.kinds["invitation"].copied == 1 and _invitations() == ["lee@example.com"]


@pytest.mark.parametrize("flag, invite", [([], True), (["--no-invite"], False)])
def test_the_command_invites_unless_no_invite(monkeypatch, capsys, flag, invite):
    from chalicelib import cli
    from chalicelib.movein import command
    from chalicelib.movein.report import Report

    asked = []
    monkeypatch.setattr(mover, "move", lambda run, allow_live, invite: asked.append(invite) or Report())
    args = cli._parser().parse_args(
        ["move-in", "--from", "http://127.0.0.1:9", "--from-user", "a", "--from-password", "p"]
        + ["--to", "http://127.0.0.1:9", "--to-user", "a", "--to-password", "p", "--quiet", *flag]
    )
    assert command.run(args) == 0 and asked == [invite]
