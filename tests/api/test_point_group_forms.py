"""Point groups in forms and the point change log (Mautic 5): the form action `lead.pointschange` with
a `group` changes the contact's score in that group instead of its points (LeadBundle's
`FormSubscriber::onFormSubmitActionChangePoints`), and `lead_points_change_log.group_id` names the
group a change moved (Mautic's `PointsChangeLog::setGroup`)."""

from tests.api.payloads import assert_error
from tests.api.test_forms_submit import make_form, post
from tests.api.test_permissions import _as
from tests.api.test_point_groups import change, make_group, scores
from tests.api.test_point_triggers import make_trigger, tags
from tests.api.test_stats import stats


def _points_form(api, group_id, operator="plus", points=7):
    action = {"name": "Score", "type": "lead.pointschange", "properties": {"operator": operator, "points": points}}
    if group_id is not None:
        action["properties"]["group"] = group_id
    return make_form(api, actions=[action])


def _submitter(api, email):
    (contact,) = api.get(f"/api/contacts?search={email}").json["contacts"].values()
    return contact


def test_the_form_action_changes_the_group_score_not_the_points(api):
    group = make_group(api)
    make_trigger(api, points=10, tag="keen", group=group["id"])
    form = _points_form(api, group["id"])
    for _ in range(2):
        assert post(api, form["id"], {"email": "ann@example.com"}).status_code == 200
    ann = _submitter(api, "ann@example.com")
    assert ann["points"] == 0
    (score,) = scores(api, ann["id"])["groupScores"]
    assert score["score"] == 14 and score["group"]["id"] == group["id"]
    assert "keen" in tags(api, ann["id"])  # the group's trigger fired as the score crossed 10
    times = _points_form(api, group["id"], operator="times", points=2)
    assert post(api, times["id"], {"email": "ann@example.com"}).status_code == 200
    assert scores(api, ann["id"])["groupScores"][0]["score"] == 28


def test_without_a_group_the_action_scores_the_points(api):
    form = _points_form(api, None)
    assert post(api, form["id"], {"email": "bob@example.com"}).status_code == 200
    bob = _submitter(api, "bob@example.com")
    assert bob["points"] == 7 and int(scores(api, bob["id"])["total"]) == 0


def test_an_unknown_group_is_refused_and_nothing_written(api):
    before = api.get("/api/forms").json["total"]
    action = {"name": "S", "type": "lead.pointschange", "properties": {"operator": "plus", "points": 1, "group": 999}}
    answer = api.post("/api/forms/new", {"name": "Bad", "actions": [action]})
    assert_error(answer, 400, field="actions[0][properties][group]")
    assert int(api.get("/api/forms").json["total"]) == before


def test_naming_a_group_needs_its_view(api):
    group = make_group(api, name="Secret interest")
    blind = _as(api, "formmaker", {"form:forms": ["viewown", "editown", "create"]})
    action = {"name": "S", "type": "lead.pointschange", "properties": {"points": 1, "group": group["id"]}}
    answer = blind.post("/api/forms/new", {"name": "Mine", "actions": [action]})
    assert_error(answer, 403)
    assert "Secret interest" not in str(answer.json)
    assert int(blind.get("/api/forms").json["total"]) == 0
    seeing = _as(api, "groupviewer", {"form:forms": ["viewown", "create"], "point:groups": ["view"]})
    assert seeing.post("/api/forms/new", {"name": "Mine", "actions": [action]}).status_code == 201


def test_the_change_log_names_the_group(api):
    group = make_group(api)
    form = _points_form(api, group["id"], points=3)
    assert post(api, form["id"], {"email": "ann@example.com"}).status_code == 200
    ann = _submitter(api, "ann@example.com")
    assert change(api, ann["id"], group["id"], "plus", 2).status_code == 200
    api.patch(f"/api/contacts/{ann['id']}/edit", {"points": 5})
    where = [{"col": "lead_id", "expr": "eq", "val": ann["id"]}]
    rows = stats(api, "lead_points_change_log", where=where)["stats"]
    assert [(r["group_id"], r["delta"]) for r in rows] == [
        (str(group["id"]), "3"),
        (str(group["id"]), "2"),
        (None, "5"),
    ]
    grouped = stats(api, "lead_points_change_log", where=[{"col": "group_id", "expr": "eq", "val": group["id"]}])
    assert int(grouped["total"]) == 2
