"""Issue 9, points engine: point actions score events (repeatable or once), point triggers fire
their events once when the points cross the threshold, and the contact's colour follows them."""

from tests.api.test_forms_submit import make_form, post


def contact(api, email="pat@example.com"):
    return api.post("/api/contacts/new", {"email": email}).json["contact"]


def points_of(api, contact_id):
    return api.get(f"/api/contacts/{contact_id}").json["contact"]


def test_form_submit_point_action_scores_once_unless_repeatable(api):
    form = make_form(api)
    other = make_form(api, name="Other")
    api.post(
        "/api/points/new", {"name": "Submits", "type": "form.submit", "delta": 5, "properties": {"forms": [form["id"]]}}
    )
    api.post("/api/points/new", {"name": "Any form, every time", "type": "form.submit", "delta": 1, "repeatable": True})
    person = contact(api)
    for target in (form, form, other):
        post(api, target["id"], {"email": "pat@example.com"})
    assert points_of(api, person["id"])["points"] == 5 + 3
    gained = [
        e for e in api.get(f"/api/contacts/{person['id']}/activity").json["events"] if e["event"] == "point.gained"
    ]
    assert len(gained) == 4 and {e["details"]["pointActionId"] for e in gained} == {1, 2}


def test_unpublished_point_action_does_not_score(api):
    form = make_form(api)
    api.post("/api/points/new", {"name": "Off", "type": "form.submit", "delta": 5, "isPublished": False})
    person = contact(api)
    post(api, form["id"], {"email": "pat@example.com"})
    assert points_of(api, person["id"])["points"] == 0


def test_trigger_fires_once_when_threshold_is_crossed_and_colour_follows(api):
    trigger = api.post(
        "/api/points/triggers/new",
        {
            "name": "Hot",
            "points": 10,
            "color": "#ff0000",
            "events": [{"name": "Tag hot", "type": "lead.changetags", "properties": {"add_tags": ["hot"]}}],
        },
    ).json
    assert trigger["trigger"]["color"] == "ff0000"
    person = contact(api)
    api.post(f"/api/contacts/{person['id']}/points/plus/5")
    below = points_of(api, person["id"])
    assert below["tags"] == [] and below["color"] is None
    api.post(f"/api/contacts/{person['id']}/points/plus/6")
    above = points_of(api, person["id"])
    assert [t["tag"] for t in above["tags"]] == ["hot"] and above["color"] == "ff0000"
    api.patch(f"/api/contacts/{person['id']}/edit", {"tags": ["-hot"]})
    api.post(f"/api/contacts/{person['id']}/points/minus/10")
    api.post(f"/api/contacts/{person['id']}/points/plus/10")
    again = points_of(api, person["id"])
    assert again["tags"] == [] and again["points"] == 11 and again["color"] == "ff0000"


def test_trigger_crossed_by_a_form_submission_changes_segments(api):
    segment = api.post("/api/segments/new", {"name": "Engaged"}).json["list"]
    api.post(
        "/api/points/triggers/new",
        {
            "name": "Engaged",
            "points": 3,
            "events": [{"name": "Add", "type": "lead.changelists", "properties": {"addToLists": [segment["id"]]}}],
        },
    )
    api.post("/api/points/new", {"name": "Submits", "type": "form.submit", "delta": 3})
    form = make_form(api)
    person = contact(api)
    post(api, form["id"], {"email": "pat@example.com"})
    listed = api.get(f"/api/contacts/{person['id']}/segments").json
    assert str(segment["id"]) in {str(k) for k in listed["lists"]}


def test_form_action_points_cross_a_trigger(api):
    api.post(
        "/api/points/triggers/new",
        {
            "name": "Warm",
            "points": 4,
            "color": "00ff00",
            "events": [{"name": "Tag", "type": "lead.changetags", "properties": {"add_tags": "warm"}}],
        },
    )
    form = make_form(
        api, actions=[{"name": "Score", "type": "lead.pointschange", "properties": {"operator": "plus", "points": 4}}]
    )
    post(api, form["id"], {"email": "pat@example.com"})
    (person,) = api.get("/api/contacts").json["contacts"].values()
    assert person["points"] == 4 and person["color"] == "00ff00" and [t["tag"] for t in person["tags"]] == ["warm"]


def test_type_catalogues(api):
    assert set(api.get("/api/points/actions/types").json["pointActionTypes"]) == {
        "asset.download",
        "email.open",
        "email.send",
        "form.submit",
        "page.hit",
        "url.hit",
    }
    assert "lead.changelists" in api.get("/api/points/triggers/events/types").json["eventTypes"]
