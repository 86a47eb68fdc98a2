"""The administrator-only id mapping of a move-in (`/api/movein/mappings/<kind>`, docs/move-in.md)."""

import json

from chalicelib.domain.kernel import moved_ids
from tests.api.test_permissions import FORBIDDEN, _as


def _entries(first, n):
    return [{"from": first + i, "to": 1000 + first + i, "modified": "2026-01-01T00:00:00+00:00"} for i in range(n)]


def test_chunks_are_stored_and_read_in_pages_a_later_one_winning(api):
    assert api.get("/api/movein/mappings/contact").json == {"kind": "contact", "chunks": [], "next": None}
    stored = []
    for n in range(moved_ids.PAGE + 1):
        answer = api.post("/api/movein/mappings/contact", {"entries": _entries(n * 2 + 1, 2)})
        assert answer.status_code == 201, answer.json
        stored.append(answer.json)
    first = api.get("/api/movein/mappings/contact").json
    assert [c["id"] for c in first["chunks"]] == [c["id"] for c in stored[: moved_ids.PAGE]]
    rest = api.get(f"/api/movein/mappings/contact?after={first['next']}").json
    assert rest["chunks"] == stored[moved_ids.PAGE :] and rest["next"] is None
    assert api.get("/api/movein/mappings/email").json["chunks"] == []  # one mapping per kind


def test_bad_input_is_a_400_naming_the_field_and_writes_nothing(api):
    cases = [
        ("/api/movein/mappings/contact", {"entries": []}, "entries"),
        ("/api/movein/mappings/contact", {"entries": _entries(1, moved_ids.MAX_ENTRIES + 1)}, "entries"),
        ("/api/movein/mappings/contact", {"entries": [{"from": "1", "to": 2}]}, "entries[0]"),
        ("/api/movein/mappings/contact", {"entries": [{"from": 1, "to": 2}, {"from": 1, "to": 0}]}, "entries[1]"),
        ("/api/movein/mappings/contact", {"entries": [{"from": 1, "to": 2, "modified": 5}]}, "entries[0].modified"),
        ("/api/movein/mappings/Bad-Kind", {"entries": _entries(1, 1)}, "kind"),
        ("/api/movein/mappings/contact", [1], "entries"),
    ]
    for path, body, field in cases:
        answer = api.post(path, body)
        assert answer.status_code == 400, (body, answer.json)
        assert field in answer.json["errors"][0]["details"], answer.json
    assert api.get("/api/movein/mappings/contact?after=x").status_code == 400
    assert api.get("/api/movein/mappings/contact").json["chunks"] == []


def test_a_limited_user_gets_403_and_learns_nothing(api):
    api.post("/api/movein/mappings/contact", {"entries": _entries(7, 1)})
    mallory = _as(api, "mallory", {"lead:leads": ["full"], "user:users": ["full"], "email:emails": ["full"]})
    for answer in (
        mallory.get("/api/movein/mappings/contact"),
        mallory.get("/api/movein/mappings/nothing"),
        mallory.post("/api/movein/mappings/contact", {"entries": _entries(9, 1)}),
    ):
        assert answer.status_code == 403 and answer.json["errors"][0]["message"] == FORBIDDEN
        assert "1007" not in json.dumps(answer.json)
    chunks = api.get("/api/movein/mappings/contact").json["chunks"]
    assert [e["from"] for c in chunks for e in c["entries"]] == [7]
