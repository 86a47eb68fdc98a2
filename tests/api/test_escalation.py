"""No escalation through users and roles (issue 27): a restricted caller cannot make or edit an
administrator role, give an administrator role or one granting more than they hold, change their
own role, or edit or delete an administrator; nothing is written. And access fails closed: a
caller whose user no longer exists, or a resource with no permission declared, grants nothing."""

import base64
import dataclasses

import jwt

from chalicelib.store import port as store
from tests.api.payloads import assert_error
from tests.api.test_permissions import FORBIDDEN, PASSWORD, _as
from tests.conftest import Api


def _admin_role(api):
    return api.get("/api/roles?search=is:admin").json["roles"][0]


def _user_payload(name, role_id):
    return {
        "username": name,
        "firstName": name.title(),
        "lastName": "X",
        "email": f"{name}@example.com",
        "role": role_id,
        "plainPassword": {"password": PASSWORD, "confirm": PASSWORD},
    }


def _role_of(api, user_id):
    return api.get(f"/api/users/{user_id}").json["user"]["role"]


def test_a_role_editor_cannot_make_their_role_or_any_role_an_administrator(api):
    rita = _as(api, "rita", {"user:roles": ["edit", "create"]})
    own = _role_of(api, rita.user_id)
    assert_error(rita.patch(f"/api/roles/{own['id']}/edit", {"isAdmin": True}), 403, message=FORBIDDEN)
    assert_error(rita.put(f"/api/roles/{own['id']}/edit", {"name": own["name"], "isAdmin": True}), 403)
    assert_error(rita.post("/api/roles/new", {"name": "Root", "isAdmin": True}), 403)
    batch = rita.patch("/api/roles/batch/edit", [{"id": own["id"], "isAdmin": True}])
    assert batch.json["statusCodes"] == [403]
    assert api.get(f"/api/roles/{own['id']}").json["role"]["isAdmin"] is False
    assert [r["name"] for r in api.get("/api/roles").json["roles"]] == ["Administrator", "role rita"]
    assert rita.post("/api/users/new", _user_payload("boss", _admin_role(api)["id"])).status_code == 403


def test_a_role_editor_cannot_change_an_administrator_role(api):
    rita = _as(api, "rita", {"user:roles": ["full"]})
    admins = _admin_role(api)
    assert_error(rita.patch(f"/api/roles/{admins['id']}/edit", {"isAdmin": False, "rawPermissions": {}}), 403)
    assert_error(rita.delete(f"/api/roles/{admins['id']}/delete"), 403)
    spare = api.post("/api/roles/new", {"name": "Spare admins", "isAdmin": True}).json["role"]
    assert_error(rita.delete(f"/api/roles/{spare['id']}/delete"), 403)
    assert api.get(f"/api/roles/{spare['id']}").json["role"]["isAdmin"] is True
    assert api.get(f"/api/roles/{admins['id']}").json["role"] == admins


def test_a_role_editor_grants_only_what_they_hold(api):
    rita = _as(api, "rita", {"user:roles": ["edit", "create"], "lead:leads": ["viewown"]})
    own = _role_of(api, rita.user_id)
    more = {"user:roles": ["edit", "create"], "lead:leads": ["viewown", "viewother"]}
    assert_error(rita.patch(f"/api/roles/{own['id']}/edit", {"rawPermissions": more}), 403)
    assert_error(rita.post("/api/roles/new", {"name": "Big", "rawPermissions": {"lead:leads": ["full"]}}), 403)
    assert api.get(f"/api/roles/{own['id']}").json["role"]["rawPermissions"] == own["rawPermissions"]
    made = rita.post("/api/roles/new", {"name": "Small", "rawPermissions": {"lead:leads": ["viewown"]}})
    assert made.status_code == 201
    rich = api.post("/api/roles/new", {"name": "Rich", "rawPermissions": {"email:emails": ["full"]}}).json["role"]
    renamed = rita.patch(
        f"/api/roles/{rich['id']}/edit",
        {"description": "kept", "rawPermissions": {"email:emails": ["full"], "lead:leads": ["viewown"]}},
    )
    assert renamed.status_code == 200  # what the role granted already may stay; the rest she holds


def test_holding_every_permission_of_a_level_grants_full(api):
    every = ["view", "edit", "create", "delete", "publish"]
    rita = _as(api, "rita", {"user:roles": ["create"], "category:categories": every})
    made = rita.post("/api/roles/new", {"name": "Categories", "rawPermissions": {"category:categories": ["full"]}})
    assert made.status_code == 201
    assert_error(rita.post("/api/roles/new", {"name": "Api", "rawPermissions": {"api:access": ["full"]}}), 403)


def test_a_user_editor_cannot_change_their_own_role_or_edit_an_administrator(api):
    ursula = _as(api, "ursula", {"user:users": ["view", "edit", "delete"]})
    before = _role_of(api, ursula.user_id)
    lesser = api.post("/api/roles/new", {"name": "Nothing"}).json["role"]
    for role in (_admin_role(api), lesser):
        assert_error(ursula.patch(f"/api/users/{ursula.user_id}/edit", {"role": role["id"]}), 403, message=FORBIDDEN)
    assert _role_of(api, ursula.user_id)["id"] == before["id"]
    admin_hash = store.get("user", 1)["passwordHash"]
    assert_error(ursula.patch("/api/users/1/edit", {"plainPassword": "owned-by-ursula"}), 403)
    assert_error(ursula.put("/api/users/1/edit", dict(_user_payload("admin", lesser["id"]))), 403)
    assert_error(ursula.delete("/api/users/1/delete"), 403)
    assert store.get("user", 1)["passwordHash"] == admin_hash
    assert store.get("user", 1)["role"] == _admin_role(api)["id"]
    assert ursula.patch(f"/api/users/{ursula.user_id}/edit", {"position": "Ops"}).status_code == 200


def test_a_user_editor_gives_no_role_beyond_their_own(api):
    ursula = _as(api, "ursula", {"user:users": ["view", "edit"], "lead:leads": ["viewown"]})
    plain = api.post("/api/roles/new", {"name": "Plain", "rawPermissions": {"lead:leads": ["viewown"]}}).json["role"]
    rich = api.post("/api/roles/new", {"name": "Rich", "rawPermissions": {"lead:leads": ["full"]}}).json["role"]
    sam = api.post("/api/users/new", _user_payload("sam", plain["id"])).json["user"]
    assert_error(ursula.patch(f"/api/users/{sam['id']}/edit", {"role": rich["id"]}), 403)
    assert_error(ursula.patch(f"/api/users/{sam['id']}/edit", {"role": _admin_role(api)["id"]}), 403)
    assert _role_of(api, sam["id"])["id"] == plain["id"]
    assert ursula.patch(f"/api/users/{sam['id']}/edit", {"firstName": "Samuel"}).status_code == 200


def test_a_user_creator_cannot_create_an_administrator(api):
    carl = _as(api, "carl", {"user:users": ["create"], "lead:leads": ["viewown"]})
    total = api.get("/api/users").json["total"]
    assert_error(carl.post("/api/users/new", _user_payload("root2", _admin_role(api)["id"])), 403, message=FORBIDDEN)
    assert_error(carl.put("/api/users/99/edit", _user_payload("root3", _admin_role(api)["id"])), 403)
    rich = api.post("/api/roles/new", {"name": "Rich", "rawPermissions": {"lead:leads": ["full"]}}).json["role"]
    assert_error(carl.post("/api/users/new", _user_payload("rich", rich["id"])), 403)
    assert int(api.get("/api/users").json["total"]) == total
    plain = api.post("/api/roles/new", {"name": "Plain", "rawPermissions": {"lead:leads": ["viewown"]}}).json["role"]
    assert carl.post("/api/users/new", _user_payload("plain", plain["id"])).status_code == 201


def _roleless_token(api, user_id):
    """An OAuth2 access token for `user_id` as issued before roles existed: no role claim."""
    from chalicelib.auth import clients, oauth2
    from chalicelib.domain.kernel import keys
    from chalicelib.domain.kernel.context import Context

    ctx = Context()
    client, _ = clients.create(ctx, "Old app", ["https://client.example/cb"], "2", creator_id=1)
    issued, _ = oauth2.issue_access_token(ctx, client, {"id": user_id, "username": "ghost"}, "family-1")
    key = keys.derived(oauth2.KEY_PURPOSE, ctx)
    claims = jwt.decode(issued, key, algorithms=["HS256"], options={"verify_iss": False})
    del claims["usr"]["role"]
    return {"Authorization": "Bearer " + jwt.encode(claims, key, algorithm="HS256")}


def test_a_caller_whose_user_no_longer_exists_is_not_an_administrator(api):
    bearer = _roleless_token(api, 999)
    assert_error(api.get("/api/contacts", headers=bearer, auth=False), 403, message=FORBIDDEN)
    assert_error(api.post("/api/tags/new", {"tag": "x"}, headers=bearer, auth=False), 403)
    assert int(api.get("/api/tags").json["total"]) == 0
    assert api.get("/api/contacts", headers=_roleless_token(api, 1), auth=False).status_code == 200


def test_a_resource_with_no_permission_declared_is_closed_to_restricted_callers(api):
    from chalicelib.domain.kernel import access, listing, registry
    from chalicelib.domain.kernel.context import Context
    from chalicelib.domain.kernel.errors import Forbidden

    undeclared = dataclasses.replace(registry.resource("tag"), permission=None)
    olga = _as(api, "olga", {"lead:leads": ["full"]})
    restricted = Context(user={"id": olga.user_id, "username": "olga", "role": _role_of(api, olga.user_id)["id"]})
    assert not access.allowed(restricted, undeclared, "view")
    try:
        listing.list_documents(undeclared, listing.ListQuery(), restricted)
        raise AssertionError("listed")
    except Forbidden:
        pass
    assert access.allowed(Context(), undeclared, "view")  # the system is unrestricted


def _basic(api, name, password):
    other = Api(api.http)
    other.auth = {"Authorization": "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()}
    return other


def test_a_user_editor_cannot_take_over_a_user_holding_more(api):
    """Issue 39: `user:users` edit alone changed the password of a contacts administrator, then
    signed in as them. Their password, email and username stay theirs; other fields may change."""
    ursula = _as(api, "ursula", {"user:users": ["view", "edit"]})
    rich = _as(api, "rich", {"lead:leads": ["full"], "user:users": ["view"]})
    before = api.get(f"/api/users/{rich.user_id}").json["user"]
    taken = {"plainPassword": {"password": "taken-over-1", "confirm": "taken-over-1"}}
    assert_error(ursula.patch(f"/api/users/{rich.user_id}/edit", taken), 403, message=FORBIDDEN)
    assert_error(ursula.patch(f"/api/users/{rich.user_id}/edit", {"email": "ursula2@example.com"}), 403)
    assert_error(ursula.patch(f"/api/users/{rich.user_id}/edit", {"username": "rich2"}), 403)
    whole = dict(before, role=before["role"]["id"], plainPassword=taken["plainPassword"])
    assert_error(ursula.put(f"/api/users/{rich.user_id}/edit", whole), 403)
    assert _basic(api, "rich", "taken-over-1").get("/api/contacts").status_code == 401
    assert rich.get("/api/contacts").status_code == 200
    assert api.get(f"/api/users/{rich.user_id}").json["user"] == before
    renamed = ursula.patch(f"/api/users/{rich.user_id}/edit", {"position": "Sales"})
    assert renamed.status_code == 200, renamed.json  # what does not sign anyone in may change


def test_a_user_editor_changes_credentials_of_users_holding_no_more_than_they(api):
    ursula = _as(api, "ursula", {"user:users": ["view", "edit"], "lead:leads": ["full"]})
    peer = _as(api, "peer", {"lead:leads": ["viewown", "editown"]})
    new = {"plainPassword": {"password": "new-secret-1", "confirm": "new-secret-1"}, "email": "p2@example.com"}
    assert ursula.patch(f"/api/users/{peer.user_id}/edit", new).status_code == 200
    assert _basic(api, "peer", "new-secret-1").get("/api/contacts").status_code == 200
    mine = {"plainPassword": {"password": "mine-secret-1", "confirm": "mine-secret-1"}}
    assert ursula.patch(f"/api/users/{ursula.user_id}/edit", mine).status_code == 200
    rich = _as(api, "rich", {"lead:leads": ["full"], "email:emails": ["full"]})
    assert api.patch(f"/api/users/{rich.user_id}/edit", new | {"email": "r2@example.com"}).status_code == 200
    assert _basic(api, "rich", "new-secret-1").get("/api/emails").status_code == 200  # admins unaffected
