"""Users API: who am I, the list, one user; never a password hash."""

import pytest


def test_self_is_the_authenticated_user_unwrapped(api):
    r = api.get("/api/users/self")
    assert r.status_code == 200
    assert r.json["id"] == 1 and r.json["username"] == "admin"
    assert "passwordHash" not in r.json and "user" not in r.json


def test_list_is_an_array_with_total(api):
    from chalicelib.auth import users

    users.create_user("jane", "pw-jane-123", "Jane", "Doe", "jane@example.com")
    r = api.get("/api/users")
    assert r.status_code == 200 and int(r.json["total"]) == 2
    assert [u["username"] for u in r.json["users"]] == ["admin", "jane"]
    assert all("passwordHash" not in u for u in r.json["users"])


def test_one_user_and_unknown_user(api):
    r = api.get("/api/users/1")
    assert r.status_code == 200 and r.json["user"]["username"] == "admin"
    assert api.get("/api/users/99").status_code == 404


def test_users_require_credentials(api):
    assert api.get("/api/users/self", auth=False).status_code == 401


def test_owners_are_a_bare_array_of_three_keys(api):
    from chalicelib.auth import users

    users.create_user("jane", "pw-jane-123", "Jane", "Doe")
    r = api.get("/api/contacts/list/owners")
    assert r.status_code == 200
    assert r.json == [
        {"id": 1, "firstName": "Admin", "lastName": "User"},
        {"id": 2, "firstName": "Jane", "lastName": "Doe"},
    ]


PASSWORD = {"password": "new-secret-1", "confirm": "new-secret-1"}


def _role(api, **body):
    r = api.post("/api/roles/new", dict({"name": "Sales"}, **body))
    assert r.status_code == 201, r.json
    return r.json["role"]


def _user(api, role_id, **body):
    payload = dict(
        {
            "username": "sam",
            "firstName": "Sam",
            "lastName": "Sales",
            "email": "sam@example.com",
            "role": role_id,
            "plainPassword": PASSWORD,
        },
        **body,
    )
    return api.post("/api/users/new", payload)


def _basic(name, password):
    import base64

    return {"Authorization": "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()}


def test_roles_echo_raw_permissions_and_list_as_an_array(api):
    role = _role(api, description="Sales team", rawPermissions={"email:emails": ["viewown", "editown"]})
    assert role["rawPermissions"] == {"email:emails": ["viewown", "editown"]} and role["isAdmin"] is False
    assert "permissions" not in role
    listed = api.get("/api/roles").json
    assert isinstance(listed["roles"], list) and [r["name"] for r in listed["roles"]] == ["Administrator", "Sales"]
    assert [r["name"] for r in api.get("/api/roles?search=is:admin").json["roles"]] == ["Administrator"]
    named = api.post("/api/roles/new", {"name": "Ops", "rawPermissions": ["lead:leads:viewother"]}).json["role"]
    assert named["rawPermissions"] == {"lead:leads": ["viewother"]}


def test_an_unknown_permission_is_a_400_naming_raw_permissions(api):
    r = api.post("/api/roles/new", {"name": "Bad", "rawPermissions": {"email:emails": ["fly"]}})
    assert r.status_code == 400 and "rawPermissions" in r.json["errors"][0]["details"]
    assert "email:emails:fly" in r.json["errors"][0]["message"]
    assert int(api.get("/api/roles").json["total"]) == 1


def test_a_role_held_by_users_cannot_be_deleted(api):
    role = _role(api)
    assert _user(api, role["id"]).status_code == 201
    r = api.delete(f"/api/roles/{role['id']}/delete")
    assert r.status_code == 400 and "role" in r.json["errors"][0]["details"]
    spare = _role(api, name="Spare")
    assert api.delete(f"/api/roles/{spare['id']}/delete").json["role"]["id"] is None


def test_a_new_user_is_hashed_shown_without_password_and_can_sign_in(api):
    role = _role(api)
    r = _user(api, role["id"])
    assert r.status_code == 201 and r.headers["Location"].endswith(f"/api/users/{r.json['user']['id']}")
    user = r.json["user"]
    assert not {"plainPassword", "passwordHash", "password"} & set(user)
    assert user["role"] == {
        "id": role["id"],
        "name": "Sales",
        "description": None,
        "isAdmin": False,
        "rawPermissions": {},
    }
    assert api.get("/api/users/self", headers=_basic("sam", "new-secret-1"), auth=False).json["id"] == user["id"]
    from chalicelib.store import port as store

    assert store.get("user", user["id"])["passwordHash"].startswith("$argon2id$")


@pytest.mark.parametrize(
    "change, field",
    [
        ({"plainPassword": {"password": "new-secret-1", "confirm": "other-secret"}}, "plainPassword"),
        ({"plainPassword": "short"}, "plainPassword"),
        ({"plainPassword": None}, "plainPassword"),
        ({"firstName": ""}, "firstName"),
        ({"email": "not-an-address"}, "email"),
        ({"role": None}, "role"),
        ({"role": 99}, "role"),
    ],
)
def test_user_create_errors_name_the_field_and_write_nothing(api, change, field):
    role = _role(api)
    r = _user(api, role["id"], **change)
    assert r.status_code == 400 and field in r.json["errors"][0]["details"], r.json
    assert int(api.get("/api/users").json["total"]) == 1


def test_edit_keeps_the_username_and_a_new_password_ends_old_credentials(api):
    role = _role(api)
    user = _user(api, role["id"]).json["user"]
    old = _basic("sam", "new-secret-1")
    assert api.get("/api/users/self", headers=old, auth=False).status_code == 200
    r = api.patch(
        f"/api/users/{user['id']}/edit",
        {
            "username": "other",
            "position": "Lead",
            "plainPassword": {"password": "newer-secret", "confirm": "newer-secret"},
        },
    )
    assert r.status_code == 200 and r.json["user"]["username"] == "sam" and r.json["user"]["position"] == "Lead"
    assert api.get("/api/users/self", headers=old, auth=False).status_code == 401
    assert api.get("/api/users/self", headers=_basic("sam", "newer-secret"), auth=False).status_code == 200


def test_deleting_a_user_revokes_their_credentials_at_once(api):
    role = _role(api)
    user = _user(api, role["id"]).json["user"]
    creds = _basic("sam", "new-secret-1")
    assert api.get("/api/users/self", headers=creds, auth=False).status_code == 200
    r = api.delete(f"/api/users/{user['id']}/delete")
    assert r.status_code == 200 and r.json["user"]["id"] is None and r.json["user"]["username"] == "sam"
    assert api.get("/api/users/self", headers=creds, auth=False).status_code == 401
    assert api.get(f"/api/users/{user['id']}").status_code == 404


def test_permissioncheck_answers_a_map_of_booleans(api):
    role = _role(api, rawPermissions={"email:emails": ["editown"]})
    user = _user(api, role["id"]).json["user"]
    r = api.post(
        f"/api/users/{user['id']}/permissioncheck",
        {"permissions": ["email:emails:viewown", "email:emails:editother", "email:emails:editown"]},
    )
    assert r.status_code == 200
    assert r.json == {"email:emails:viewown": True, "email:emails:editother": False, "email:emails:editown": True}
    single = api.post(f"/api/users/{user['id']}/permissioncheck", {"permissions": "lead:leads:viewown"})
    assert single.json == {"lead:leads:viewown": False}
    assert api.post("/api/users/1/permissioncheck", {"permissions": ["lead:leads:full"]}).json == {
        "lead:leads:full": True
    }
    empty = api.post(f"/api/users/{user['id']}/permissioncheck", {"permissions": []})
    assert empty.status_code == 400 and empty.json["errors"][0]["details"] == {
        "permissions": ["At least one permission must be submitted."]
    }
    unknown = api.post(f"/api/users/{user['id']}/permissioncheck", {"permissions": "email:spaceships:view"})
    assert unknown.status_code == 400
    assert api.post("/api/users/99/permissioncheck", {"permissions": "lead:leads:viewown"}).status_code == 404


def test_list_roles_is_a_bare_array(api):
    _role(api)
    assert api.get("/api/users/list/roles").json == [{"id": 1, "name": "Administrator"}, {"id": 2, "name": "Sales"}]


def test_user_search_commands(api):
    role = _role(api)
    _user(api, role["id"], position="Manager")
    names = lambda q: [u["username"] for u in api.get(f"/api/users?search={q}").json["users"]]  # noqa: E731
    assert names("is:admin") == ["admin"]
    assert names("role:Sales") == ["sam"]
    assert names("position:Manager") == ["sam"]
    assert names("email:sam@example.com") == ["sam"]


def test_a_taken_username_is_mautics_400(api):
    role = _role(api)
    assert _user(api, role["id"]).status_code == 201
    r = _user(api, role["id"], email="other@example.com")
    assert r.status_code == 400
    assert r.json["errors"][0]["details"] == {"username": ["Username is already in use. Please select another."]}
