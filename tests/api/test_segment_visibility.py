"""Issue 41: a segment with `isGlobal: false` is seen by its author only (and by who may view every
segment, `lead:lists:viewother`, as Mautic's ListModel::getUserLists and segment list); a global one
by every user who may view segments. In lists, GET by id, the segment picker, and as a reference
(a `leadlist` filter, an automation's or an email's `lists`)."""

from tests.api.payloads import assert_error
from tests.api.test_permissions import FORBIDDEN, _as

OWN = {"lead:lists": ["viewown", "editown", "create"], "campaign:campaigns": ["full"], "email:emails": ["full"]}


def _segment(client, name, **extra):
    r = client.post("/api/segments/new", {"name": name, "isPublished": True, **extra})
    assert r.status_code == 201, r.json
    return r.json["list"]


def _in_segment(segment_id):
    return [
        {
            "glue": "and",
            "field": "leadlist",
            "object": "lead",
            "type": "leadlist",
            "operator": "in",
            "properties": {"filter": [segment_id]},
        }
    ]


def _names(client, query=""):
    r = client.get(f"/api/segments{query}")
    assert r.status_code == 200, r.json
    return sorted(s["name"] for s in r.json["lists"].values()) if r.json["lists"] else []


def test_a_private_segment_is_invisible_to_another_user(api):
    ann, bob = _as(api, "ann", OWN), _as(api, "bob", OWN)
    private = _segment(ann, "Ann's secret", isGlobal=False)
    shared = _segment(ann, "Ann's shared")
    _segment(bob, "Bob's")
    assert _names(bob) == ["Ann's shared", "Bob's"]
    assert _names(bob, "?search=Ann") == ["Ann's shared"]
    assert_error(bob.get(f"/api/segments/{private['id']}"), 403, message=FORBIDDEN)
    assert bob.get(f"/api/segments/{shared['id']}").json["list"]["name"] == "Ann's shared"
    assert_error(bob.patch(f"/api/segments/{shared['id']}/edit", {"name": "Mine now"}), 403)  # seen, not editable
    assert "Ann's secret" not in str(bob.get("/api/contacts/list/segments").json)
    assert _names(ann) == ["Ann's secret", "Ann's shared", "Bob's"]  # Bob's is global
    assert ann.get(f"/api/segments/{private['id']}").status_code == 200
    assert _names(api) == ["Ann's secret", "Ann's shared", "Bob's"]


def test_who_may_view_every_segment_sees_private_ones_as_in_mautic(api):
    ann = _as(api, "ann", OWN)
    private = _segment(ann, "Ann's secret", isGlobal=False)
    carol = _as(api, "carol", {"lead:lists": ["viewother"]})
    assert carol.get(f"/api/segments/{private['id']}").status_code == 200
    assert _names(carol) == ["Ann's secret"]


def test_a_private_segment_cannot_be_named_by_another_user(api):
    ann, bob = _as(api, "ann", OWN), _as(api, "bob", OWN)
    private, shared = _segment(ann, "Ann's secret", isGlobal=False), _segment(ann, "Ann's shared")
    refused = bob.post("/api/segments/new", {"name": "Probe", "filters": _in_segment(private["id"])})
    assert_error(refused, 400, field="filters[0][properties][filter]")
    assert private["name"] not in str(refused.json)
    assert bob.post("/api/segments/new", {"name": "Fine", "filters": _in_segment(shared["id"])}).status_code == 201
    assert_error(bob.post("/api/automations/new", {"name": "A", "lists": [private["id"]]}), 400, field="lists")
    assert bob.post("/api/automations/new", {"name": "B", "lists": [shared["id"]]}).status_code == 201
    email = {"name": "E", "subject": "S", "emailType": "list", "lists": [private["id"]]}
    assert_error(bob.post("/api/emails/new", email), 400, field="lists")
    assert ann.post("/api/automations/new", {"name": "Hers", "lists": [private["id"]]}).status_code == 201
    assert _names(bob) == ["Ann's shared", "Fine"]
