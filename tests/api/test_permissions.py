"""Roles decide what a non-admin user may do: per bundle (one allowed and one refused case each),
own/other documents on every path (get, list, search, edit, delete, batch, nested actions,
membership), publishing fields, and the routes that need one of several permissions."""

import base64

import pytest

from tests.api.payloads import BY_PREFIX, RESOURCES, assert_error, create, ids
from tests.conftest import Api

FORBIDDEN = "You do not have access to the requested area/action."
PASSWORD = "secret-pass-1"


def _level(prefix):
    from chalicelib.domain.kernel import registry

    return next(r.permission for r in registry.resources() if r.prefix == prefix)


def _as(api, name, raw):
    """An Api authenticated as a new user whose role grants `raw` ({bundle:level: [permissions]})."""
    role = api.post("/api/roles/new", {"name": f"role {name}", "rawPermissions": raw})
    assert role.status_code == 201, role.json
    user = api.post(
        "/api/users/new",
        {
            "username": name,
            "firstName": name.title(),
            "lastName": "Tester",
            "email": f"{name}@example.com",
            "role": role.json["role"]["id"],
            "plainPassword": {"password": PASSWORD, "confirm": PASSWORD},
        },
    )
    assert user.status_code == 201, user.json
    other = Api(api.http)
    other.auth = {"Authorization": "Basic " + base64.b64encode(f"{name}:{PASSWORD}".encode()).decode()}
    other.user_id = user.json["user"]["id"]
    return other


@pytest.fixture
def as_user(api):
    return lambda name, raw: _as(api, name, raw)


def _full_permissions(level):
    from chalicelib.domain.kernel import permission_catalog

    return [p for p in permission_catalog.CATALOG[level] if p != "full"]


@pytest.mark.parametrize("res", RESOURCES, ids=str)
def test_each_bundle_view_allows_reading_and_refuses_creating(api, as_user, res):
    level = _level(res.prefix)
    viewing = [p for p in _full_permissions(level) if p.startswith("view")]
    reader = as_user("reader", {level: viewing})
    before = int(api.get(res.base).json["total"])
    assert reader.get(res.base).status_code == 200
    assert_error(reader.post(f"{res.base}/new", res.create), 403, message=FORBIDDEN)
    assert int(api.get(res.base).json["total"]) == before  # nothing written


@pytest.mark.parametrize("res", RESOURCES, ids=str)
def test_each_bundle_create_allows_creating_and_a_role_without_it_is_refused_reading(api, as_user, res):
    level = _level(res.prefix)
    grant = ["full"] if level == "lead:fields" else ["create"]
    writer = as_user("writer", {level: grant})
    assert writer.post(f"{res.base}/new", res.create).status_code == 201
    stranger = as_user("stranger", {"report:reports": ["viewown"]})
    assert_error(stranger.get(res.base), 403, message=FORBIDDEN)


# The resources beyond the spec: (prefix, a valid create payload given an admin Api). A device is
# written on its contact: its writer also needs to edit that contact (the administrator's).
BEYOND = [
    ("stages", lambda api: {"name": "Stage", "weight": 1}),
    ("points/groups", lambda api: {"name": "Group"}),
    ("focus", lambda api: {"name": "Bar", "type": "notice", "style": "bar"}),
    ("messages", lambda api: {"name": "Message"}),
    ("roles", lambda api: {"name": "Role"}),
    ("devices", lambda api: {"lead": create(api, BY_PREFIX["contacts"], owner=None)["id"], "device": "desktop"}),
    (
        "users",
        lambda api: {
            "username": "new",
            "firstName": "N",
            "lastName": "U",
            "email": "n@example.com",
            "role": api.post("/api/roles/new", {"name": "Plain"}).json["role"]["id"],
            "plainPassword": {"password": PASSWORD, "confirm": PASSWORD},
        },
    ),
]


@pytest.mark.parametrize("prefix, payload", BEYOND, ids=[prefix for prefix, _ in BEYOND])
def test_each_bundle_beyond_the_spec_allows_and_refuses(api, as_user, prefix, payload):
    level = _level(prefix)
    body = payload(api)
    reader = as_user("reader", {level: [p for p in _full_permissions(level) if p.startswith("view")]})
    assert reader.get(f"/api/{prefix}").status_code == 200
    assert_error(reader.post(f"/api/{prefix}/new", body), 403, message=FORBIDDEN)
    writer = as_user("writer", {level: ["create"] + (["editother"] if prefix == "devices" else [])})
    assert writer.post(f"/api/{prefix}/new", body).status_code == 201


def test_the_error_is_mautics_403_document(as_user):
    r = as_user("nobody", {}).get("/api/contacts")
    assert r.status_code == 403
    assert r.json == {"errors": [{"code": 403, "message": FORBIDDEN, "details": [], "type": None}]}


def test_own_contacts_only_on_every_path(api, as_user):
    ann = as_user("ann", {"lead:leads": ["viewown", "editown", "deleteown", "create"], "lead:lists": ["viewother"]})
    theirs = create(api, BY_PREFIX["contacts"], email="boss@example.com", firstname="Boss")
    mine = ann.post("/api/contacts/new", {"email": "ann.c@example.com", "firstname": "Annie"}).json["contact"]
    contacts = BY_PREFIX["contacts"]

    assert ann.get(f"/api/contacts/{mine['id']}").status_code == 200
    assert_error(ann.get(f"/api/contacts/{theirs['id']}"), 403)
    assert ids(contacts, ann.get("/api/contacts").json) == [mine["id"]]
    assert int(ann.get("/api/contacts").json["total"]) == 1
    assert ids(contacts, ann.get("/api/contacts?search=Boss").json) == []
    assert ids(contacts, api.get("/api/contacts?search=Boss").json) == [theirs["id"]]

    assert ann.patch(f"/api/contacts/{mine['id']}/edit", {"firstname": "A"}).status_code == 200
    assert_error(ann.patch(f"/api/contacts/{theirs['id']}/edit", {"firstname": "X"}), 403)
    assert_error(ann.delete(f"/api/contacts/{theirs['id']}/delete"), 403)
    assert_error(ann.post(f"/api/contacts/{theirs['id']}/points/plus/5"), 403)
    assert ann.post(f"/api/contacts/{mine['id']}/points/plus/5").status_code == 200
    segment = create(api, BY_PREFIX["segments"])
    assert_error(ann.post(f"/api/segments/{segment['id']}/contact/{theirs['id']}/add"), 403)
    assert ann.post(f"/api/segments/{segment['id']}/contact/{mine['id']}/add").status_code == 200

    edited = ann.patch(
        "/api/contacts/batch/edit", [{"id": mine["id"], "firstname": "B"}, {"id": theirs["id"], "firstname": "Y"}]
    )
    assert edited.status_code == 200 and edited.json["statusCodes"] == [200, 403]
    assert edited.json["errors"] == {"1": {"message": FORBIDDEN, "code": 403, "type": "api"}}
    deleted = ann.delete(f"/api/contacts/batch/delete?ids={theirs['id']},{mine['id']}")
    assert deleted.json["errors"] == [{"message": FORBIDDEN, "code": 403, "type": "api"}]
    assert [c["id"] for c in deleted.json["contacts"].values()] == [mine["id"]]
    boss = api.get(f"/api/contacts/{theirs['id']}").json["contact"]
    assert boss["fields"]["all"]["firstname"] == "Boss" and boss["points"] == 0  # nothing written


def test_a_contact_owned_by_the_user_is_theirs(api, as_user):
    ann = as_user("ann", {"lead:leads": ["viewown"]})
    owned = create(api, BY_PREFIX["contacts"], email="owned@example.com", owner=ann.user_id)
    assert ann.get(f"/api/contacts/{owned['id']}").status_code == 200


def test_viewother_sees_every_document(api, as_user):
    theirs = create(api, BY_PREFIX["emails"])
    bob = as_user("bob", {"email:emails": ["viewother"]})
    assert bob.get(f"/api/emails/{theirs['id']}").status_code == 200
    assert int(bob.get("/api/emails").json["total"]) == 1
    assert_error(bob.patch(f"/api/emails/{theirs['id']}/edit", {"name": "x"}), 403)


def test_publishing_fields_are_dropped_without_publish(api, as_user):
    eve = as_user("eve", {"email:emails": ["create", "editown"]})
    email = eve.post("/api/emails/new", {"name": "Mail", "isPublished": True}).json["email"]
    assert email["isPublished"] is False
    edited = eve.patch(f"/api/emails/{email['id']}/edit", {"isPublished": True, "name": "Mail 2"}).json["email"]
    assert edited["isPublished"] is False and edited["name"] == "Mail 2"
    publisher = as_user("pub", {"email:emails": ["create", "publishown"]})
    assert publisher.post("/api/emails/new", {"name": "M", "isPublished": True}).json["email"]["isPublished"] is True


def test_batch_new_needs_create_for_the_whole_batch(as_user):
    viewer = as_user("viewer", {"lead:leads": ["viewother"]})
    assert_error(viewer.post("/api/contacts/batch/new", [{"email": "a@example.com"}]), 403)


def test_routes_needing_one_of_several_permissions(api, as_user):
    editor = as_user("editor", {"lead:leads": ["editown"]})
    assert editor.get("/api/contacts/list/owners").status_code == 200
    assert editor.get("/api/contacts/list/fields").status_code == 200
    viewer = as_user("viewer", {"lead:leads": ["viewown"]})
    assert_error(viewer.get("/api/contacts/list/owners"), 403)
    assert_error(viewer.get("/api/stats"), 403)
    assert viewer.get("/api/users/self").json["username"] == "viewer"


def test_an_admin_role_may_do_everything(api):
    role = api.post("/api/roles/new", {"name": "Admins", "isAdmin": True}).json["role"]
    api.post(
        "/api/users/new",
        {
            "username": "root2",
            "firstName": "R",
            "lastName": "T",
            "email": "r@example.com",
            "role": role["id"],
            "plainPassword": {"password": PASSWORD, "confirm": PASSWORD},
        },
    )
    root = Api(api.http)
    root.auth = {"Authorization": "Basic " + base64.b64encode(f"root2:{PASSWORD}".encode()).decode()}
    assert root.post("/api/emails/new", {"name": "M"}).status_code == 201
    assert root.get("/api/stats").status_code == 200


def test_every_api_route_declares_its_needs():
    from chalicelib.api.blueprints import API_ROUTES

    open_routes = sorted(
        (path, method)
        for routes in API_ROUTES
        for path, methods in routes.needs.items()
        for method, needs in methods.items()
        if not needs
    )
    assert open_routes == [("/users/self", "GET")]


def test_membership_shows_and_changes_only_own_contacts(api, as_user):
    from tests.api.test_automations import new_automation, tag

    ann = as_user(
        "ann",
        {
            "lead:leads": ["viewown", "editown", "create"],
            "lead:lists": ["viewother"],
            "campaign:campaigns": ["viewother"],
        },
    )
    theirs = create(api, BY_PREFIX["contacts"], email="boss@example.com")
    mine = ann.post("/api/contacts/new", {"email": "ann.c@example.com"}).json["contact"]
    automation = new_automation(api, [tag("new1", "hello")])
    for contact in (theirs, mine):
        assert api.post(f"/api/automations/{automation['id']}/contact/{contact['id']}/add").status_code == 200
    members = ann.get(f"/api/automations/{automation['id']}/contacts").json
    assert int(members["total"]) == 1 and [m["lead_id"] for m in members["contacts"]] == [str(mine["id"])]
    assert int(api.get(f"/api/automations/{automation['id']}/contacts").json["total"]) == 2
    assert_error(ann.post(f"/api/automations/{automation['id']}/contact/{theirs['id']}/remove"), 403)

    segment = create(api, BY_PREFIX["segments"])
    r = ann.post(f"/api/segments/{segment['id']}/contacts/add", {"ids": [theirs["id"], mine["id"]]})
    assert r.json["details"] == {str(theirs["id"]): {"success": False}, str(mine["id"]): {"success": True}}
    assert int(api.get(f"/api/contacts/{theirs['id']}/segments").json["total"]) == 0


def test_a_device_is_written_on_a_contact_the_caller_may_edit(api, as_user):
    dan = as_user("dan", {"lead:leads": ["viewown", "editown", "create"]})
    theirs = create(api, BY_PREFIX["contacts"], email="boss@example.com")
    mine = dan.post("/api/contacts/new", {"email": "dan.c@example.com"}).json["contact"]
    assert dan.post("/api/devices/new", {"lead": mine["id"], "device": "desktop"}).status_code == 201
    assert_error(dan.post("/api/devices/new", {"lead": theirs["id"], "device": "desktop"}), 403)
    assert int(api.get(f"/api/contacts/{theirs['id']}/devices").json["total"]) == 0


def test_an_oauth2_client_acts_with_its_users_role_and_a_new_role_ends_its_tokens(api, as_user):
    from chalicelib.auth import clients
    from chalicelib.domain.kernel.context import Context
    from tests.api.test_oauth2 import token

    olga = as_user("olga", {"email:emails": ["viewown"]})
    doc, secret = clients.create(
        Context(), "Machine", [], "2", creator_id=1, grants=["client_credentials"], user_id=olga.user_id
    )
    issued = token(api, {"grant_type": "client_credentials", "client_id": doc["publicId"], "client_secret": secret})
    bearer = {"Authorization": f"Bearer {issued.json['access_token']}"}
    assert api.get("/api/emails", headers=bearer, auth=False).status_code == 200
    assert_error(api.post("/api/emails/new", {"name": "M"}, headers=bearer, auth=False), 403)
    admins = api.get("/api/roles?search=is:admin").json["roles"][0]["id"]
    assert api.patch(f"/api/users/{olga.user_id}/edit", {"role": admins}).status_code == 200
    assert api.get("/api/emails", headers=bearer, auth=False).status_code == 401
    again = token(api, {"grant_type": "client_credentials", "client_id": doc["publicId"], "client_secret": secret})
    assert (
        api.post(
            "/api/emails/new",
            {"name": "M"},
            headers={"Authorization": f"Bearer {again.json['access_token']}"},
            auth=False,
        ).status_code
        == 201
    )


def test_a_token_without_a_role_claim_uses_the_stored_users_role(api, as_user):
    from chalicelib.domain.kernel import access
    from chalicelib.domain.kernel.context import Context

    olga = as_user("olga", {"email:emails": ["viewown"]})
    ctx = Context(user={"id": olga.user_id, "username": "olga"})  # as a token issued before roles
    assert access.has(ctx, "email:emails:viewown") and not access.has(ctx, "email:emails:create")


def test_a_contact_the_user_owns_is_listed_as_it_may_be_read(api, as_user):
    ann = as_user("ann", {"lead:leads": ["viewown"]})
    owned = create(api, BY_PREFIX["contacts"], email="owned@example.com", owner=ann.user_id)
    create(api, BY_PREFIX["contacts"], email="other@example.com")
    assert ids(BY_PREFIX["contacts"], ann.get("/api/contacts").json) == [owned["id"]]


def test_own_lists_read_the_owner_feed_and_reindex_fills_it_for_older_documents(api, as_user):
    from chalicelib.domain.kernel import access, registry
    from chalicelib.store import port as store

    ann = as_user("ann", {"lead:leads": ["viewown", "create"], "email:emails": ["viewown", "create"]})
    mine = ann.post("/api/contacts/new", {"email": "ann.c@example.com"}).json["contact"]
    mail = ann.post("/api/emails/new", {"name": "Mail"}).json["email"]
    store.set_feed("contact", mine["id"], None)  # as a document stored before owner feeds
    store.set_feed("email", mail["id"], None)
    assert int(ann.get("/api/contacts").json["total"]) == 0 and int(ann.get("/api/emails").json["total"]) == 0
    assert access.reindex_owners(registry.resources()) == 2
    assert ids(BY_PREFIX["contacts"], ann.get("/api/contacts").json) == [mine["id"]]
    assert ids(BY_PREFIX["emails"], ann.get("/api/emails").json) == [mail["id"]]
    assert access.reindex_owners(registry.resources()) == 0
