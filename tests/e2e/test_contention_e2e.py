"""Issue 30, contention: concurrent writers of one contact over real HTTP to the local stack all
get 200 and every change is kept (conflicts are retried with backoff, not answered 409)."""

import http.client
import json
from concurrent.futures import ThreadPoolExecutor

from tests.e2e.test_local_stack import _call, shared_stack  # noqa: F401 - the fixture: one stack for the module


def _client(port, calls):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        return [_call(conn, *call)[0] for call in calls]
    finally:
        conn.close()


def test_contention_8_clients_x_10_point_adds_and_8_tag_patches(shared_stack):  # noqa: F811
    status, body, _ = _call(shared_stack.connection(), "POST", "/api/contacts/new", {"email": "hot@example.com"})
    assert status == 201
    contact = body["contact"]["id"]
    adds = [("POST", f"/api/contacts/{contact}/points/plus/1")] * 10
    with ThreadPoolExecutor(8) as pool:
        statuses = [s for run in pool.map(lambda _: _client(shared_stack.port, adds), range(8)) for s in run]
    assert statuses == [200] * 80
    tags = [[("PATCH", f"/api/contacts/{contact}/edit", {"tags": [f"tag{n}"]})] for n in range(8)]
    with ThreadPoolExecutor(8) as pool:
        patched = [s for run in pool.map(lambda calls: _client(shared_stack.port, calls), tags) for s in run]
    assert patched == [200] * 8
    status, body, _ = _call(shared_stack.connection(), "GET", f"/api/contacts/{contact}")
    assert body["contact"]["points"] == 80
    assert sorted(t["tag"] for t in body["contact"]["tags"]) == [f"tag{n}" for n in range(8)]


def test_honest_answers_every_method_trace_included_gets_the_json_405(shared_stack):  # noqa: F811
    conn = shared_stack.connection()
    for method in ("TRACE", "CONNECT", "PROPFIND", "BREW"):
        conn.request(method, "/api/contacts", body=b"x", headers={"Content-Length": "1"})
        response = conn.getresponse()
        body = json.loads(response.read())
        assert response.status == 405 and body["errors"][0]["code"] == 405
        assert response.getheader("Content-Type") == "application/json"
    status, _, _ = _call(conn, "GET", "/api/contacts?limit=1")  # the same connection still serves
    assert status == 200
