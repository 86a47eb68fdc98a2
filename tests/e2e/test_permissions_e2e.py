"""Users, roles and permissions over real HTTP on the running local stack, across a restart."""

from tests.e2e.test_local_stack import Stack, _call

SECRET = "sales-secret-1"


def test_a_role_made_over_http_restricts_its_user_and_survives_a_restart(tmp_path):
    stack = Stack(tmp_path / "data")
    try:
        conn = stack.connection()
        status, role, _ = _call(
            conn,
            "POST",
            "/api/roles/new",
            {"name": "Sales", "rawPermissions": {"lead:leads": ["viewown", "editown", "create"]}},
        )
        assert status == 201
        status, user, _ = _call(
            conn,
            "POST",
            "/api/users/new",
            {
                "username": "sam",
                "firstName": "Sam",
                "lastName": "Sales",
                "email": "sam@example.com",
                "role": role["role"]["id"],
                "plainPassword": {"password": SECRET, "confirm": SECRET},
            },
        )
        assert status == 201 and "plainPassword" not in user["user"]
        status, boss, _ = _call(conn, "POST", "/api/contacts/new", {"email": "boss@example.com"})
        assert status == 201
        status, mine, _ = _call(
            conn, "POST", "/api/contacts/new", {"email": "sam.c@example.com"}, password=SECRET, user="sam"
        )
        assert status == 201
    finally:
        stack.stop()
    stack = Stack(tmp_path / "data")
    try:
        conn = stack.connection()
        status, listed, _ = _call(conn, "GET", "/api/contacts", password=SECRET, user="sam")
        assert status == 200 and list(listed["contacts"]) == [str(mine["contact"]["id"])]
        status, body, _ = _call(conn, "GET", f"/api/contacts/{boss['contact']['id']}", password=SECRET, user="sam")
        assert status == 403 and body["errors"][0]["message"] == "You do not have access to the requested area/action."
        status, body, _ = _call(conn, "POST", "/api/emails/new", {"name": "Mail"}, password=SECRET, user="sam")
        assert status == 403
        status, _, _ = _call(conn, "DELETE", f"/api/users/{user['user']['id']}/delete")
        assert status == 200
        status, _, _ = _call(conn, "GET", "/api/users/self", password=SECRET, user="sam")
        assert status == 401
    finally:
        stack.stop()
