"""Users API: who am I, the list, one user; never a password hash."""


def test_self_is_the_authenticated_user_unwrapped(api):
    r = api.get("/api/users/self")
    assert r.status_code == 200
    assert r.json["id"] == 1 and r.json["username"] == "admin"
    assert "passwordHash" not in r.json and "user" not in r.json


def test_list_is_an_array_with_total(api):
    from chalicelib.auth import users
    users.create_user("jane", "pw-jane-123", "Jane", "Doe", "jane@example.com")
    r = api.get("/api/users")
    assert r.status_code == 200 and r.json["total"] == 2
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
    assert r.json == [{"id": 1, "firstName": "Admin", "lastName": "User"},
                      {"id": 2, "firstName": "Jane", "lastName": "Doe"}]
