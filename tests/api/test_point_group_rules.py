"""Point groups in automations and segments (Mautic 5): the campaign condition `lead.points` and the
action `lead.changepoints` with a `group` (LeadBundle's CampaignSubscriber), and the segment filter
`group_points_<groupId>` (PointBundle's SegmentFilterSubscriber), read from the contact's group scores."""

import pytest

from tests.api.payloads import assert_error
from tests.api.test_automations import action, branch, new_automation, tag, tags
from tests.api.test_point_groups import change, make_group, scores
from tests.api.test_segments import member_ids, membership_events, new_contact, new_segment


def _condition_automation(api, properties):
    return new_automation(
        api,
        [
            branch("new1", "lead.points", properties, kind="condition"),
            tag("new2", "yes", "new1", "yes"),
            tag("new3", "no", "new1", "no"),
        ],
    )


def _path(api, automation, contact_id):
    api.post(f"/api/automations/{automation['id']}/contact/{contact_id}/add")
    found = set(tags(api, contact_id)) & {"yes", "no"}
    assert len(found) == 1, found
    return found.pop()


@pytest.mark.parametrize(
    "operator, score, path_with_5",
    [("gte", 3, "yes"), ("gt", 5, "no"), ("=", 5, "yes"), ("!=", 5, "no"), ("lt", 6, "yes"), ("lte", 4, "no")],
)
def test_points_condition_with_a_group_compares_the_group_score(api, operator, score, path_with_5):
    group = make_group(api)
    automation = _condition_automation(api, {"operator": operator, "score": score, "group": group["id"]})
    ann = new_contact(api, email="ann@example.com", points=100)
    assert change(api, ann["id"], group["id"], "set", 5).status_code == 200
    assert _path(api, automation, ann["id"]) == path_with_5


@pytest.mark.parametrize("operator", ["lt", "!=", "gte"])
def test_points_condition_with_a_group_is_no_for_a_contact_without_a_score(api, operator):
    """Mautic's compareScore finds no `point_group_contact_score` row: false whatever the operator."""
    group = make_group(api)
    automation = _condition_automation(api, {"operator": operator, "score": 3, "group": group["id"]})
    bob = new_contact(api, email="bob@example.com", points=100)
    assert _path(api, automation, bob["id"]) == "no"


def test_points_condition_without_a_group_still_reads_the_points(api):
    group = make_group(api)
    automation = _condition_automation(api, {"operator": "gte", "score": 10, "group": ""})
    ann = new_contact(api, email="ann@example.com", points=12)
    change(api, ann["id"], group["id"], "set", 1)
    assert _path(api, automation, ann["id"]) == "yes"


def test_change_points_action_with_a_group_scores_in_the_group(api):
    group = make_group(api)
    automation = new_automation(
        api,
        [
            action("new1", "lead.changepoints", {"points": 7, "group": group["id"]}),
            action("new2", "lead.changepoints", {"points": 2}),
            action("new3", "lead.changepoints", {"points": 4, "group": 999}),  # unknown: the points, as Mautic
        ],
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert scores(api, ann["id"])["groupScores"] == [
        {"score": 7, "group": {"id": group["id"], "name": "Product", "description": "d"}}
    ]
    assert api.get(f"/api/contacts/{ann['id']}").json["contact"]["points"] == 6


# --- segment filters -------------------------------------------------------------------------------


def group_filter(group_id, operator="gte", value="1", obj="groups"):
    return {
        "glue": "and",
        "field": f"group_points_{group_id}",
        "object": obj,
        "type": "number",
        "operator": operator,
        "properties": {"filter": value},
    }


def test_group_points_filter_rebuild_matches_mautics_functional_test(api, drain):
    """Mautic's SegmentFilterFunctionalTest: A (1) is in, B (0) and C (no score) are not."""
    ann, bob = new_contact(api, email="a@example.com"), new_contact(api, email="b@example.com")
    carl = new_contact(api, email="c@example.com")
    group = make_group(api, "Group A")
    change(api, ann["id"], group["id"], "set", 1)
    change(api, bob["id"], group["id"], "set", 0)
    segment = new_segment(api, "Group A points >= 1", [group_filter(group["id"])], alias="group-a-points-gte1")
    drain()
    assert member_ids(api, "group-a-points-gte1") == [ann["id"]]
    assert carl["id"] not in member_ids(api, segment["alias"])
    # the filters are answered as sent
    assert api.get(f"/api/segments/{segment['id']}").json["list"]["filters"] == [group_filter(group["id"])]


def test_a_group_score_change_moves_the_contact_at_once(api, drain):
    group = make_group(api)
    segment = new_segment(api, "Engaged", [group_filter(group["id"], "gt", "4", obj="lead")], alias="engaged")
    drain()
    ann = new_contact(api, email="a@example.com")
    assert member_ids(api, "engaged") == []
    change(api, ann["id"], group["id"], "plus", 5)
    assert member_ids(api, "engaged") == [ann["id"]]
    change(api, ann["id"], group["id"], "minus", 3)
    assert member_ids(api, "engaged") == []
    assert membership_events(api, ann["id"]).count(("added", segment["id"])) == 1


@pytest.mark.parametrize(
    "operator, value, expected", [("!=", "1", {"b", "c"}), ("empty", None, {"c"}), ("!empty", None, {"a", "b"})]
)
def test_negative_and_emptiness_operators_count_a_missing_score_as_no_value(api, drain, operator, value, expected):
    group = make_group(api)
    people = {name: new_contact(api, email=f"{name}@example.com") for name in "abc"}
    change(api, people["a"]["id"], group["id"], "set", 1)
    change(api, people["b"]["id"], group["id"], "set", 0)
    new_segment(api, "S", [group_filter(group["id"], operator, value)], alias="s")
    drain()
    assert set(member_ids(api, "s")) == {people[n]["id"] for n in expected}


def test_a_deleted_groups_scores_no_longer_match(api, drain):
    group = make_group(api)
    ann = new_contact(api, email="a@example.com")
    change(api, ann["id"], group["id"], "set", 3)
    new_segment(api, "S", [group_filter(group["id"])], alias="s")
    drain()
    assert member_ids(api, "s") == [ann["id"]]
    api.delete(f"/api/points/groups/{group['id']}/delete")
    api.patch(f"/api/contacts/{ann['id']}/edit", {"city": "Brno"})
    assert member_ids(api, "s") == []


@pytest.mark.parametrize(
    "item, field",
    [
        (group_filter(999), "filters[0][field]"),
        (dict(group_filter("{id}"), operator="date"), "filters[0][operator]"),
        (dict(group_filter("{id}"), properties={"filter": "many"}), "filters[0][properties][filter]"),
    ],
)
def test_a_bad_group_filter_is_400_and_writes_nothing(api, item, field):
    group = make_group(api)
    item = dict(item, field=item["field"].replace("{id}", str(group["id"])))
    assert_error(api.post("/api/segments/new", {"name": "Bad", "filters": [item]}), 400, field=field)
    assert int(api.get("/api/segments").json["total"]) == 0
