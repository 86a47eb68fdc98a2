"""Issue 34's leftovers of the stats API, from Mautic's source:

- `focus_stats` (FocusBundle's `Stat`: id, focus_id, type, type_id, date_added, lead_id) answered from
  the `focus.on_view` / `focus.on_click` timeline events, paged and filtered as the other event tables;
  its access is Mautic's focus `StatsSubscriber`: a contact-restricted table (`lead:leads`);
- an unknown table answers the catalogue, as Mautic's StatsApiController does when no subscriber
  takes the table;
- `lead_points_change_log.group_id` names the point group whose score a change moved."""

from tests.api.payloads import assert_error
from tests.api.test_focus_tracking import new_item, view
from tests.api.test_permissions import _as
from tests.api.test_stats import stats
from tests.api.test_visitors import browse, cookie_of

COLUMNS = ["date_added", "focus_id", "id", "lead_id", "type", "type_id"]


def _focus_world(api):
    item = new_item(api)
    ann = cookie_of(view(api, item["id"]))
    view(api, item["id"], cookie=ann)
    assert browse(api, f"/focus/{item['id']}/click", cookie=ann).status_code == 302
    bob = cookie_of(view(api, item["id"]))
    return item, str(ann), str(bob)


def test_focus_stats_rows_are_the_views_and_clicks(api):
    item, ann, bob = _focus_world(api)
    assert api.get("/api/stats").json["tableColumns"]["focus_stats"] == COLUMNS
    answer = stats(api, "focus_stats")
    assert int(answer["total"]) == 4
    rows = answer["stats"]
    assert [(r["type"], r["lead_id"]) for r in rows] == [("view", ann), ("view", ann), ("click", ann), ("view", bob)]
    for row in rows:
        assert list(row) == ["id", "focus_id", "type", "type_id", "date_added", "lead_id"]  # Mautic's table order
        assert row["focus_id"] == str(item["id"]) and row["type_id"] is None
        assert len(row["date_added"]) == 19 and row["date_added"][10] == " "  # Y-m-d H:i:s
    ids = [int(r["id"]) for r in rows]
    assert ids == sorted(ids)


def test_focus_stats_paging_order_and_where(api):
    _, ann, bob = _focus_world(api)
    newest = stats(api, "focus_stats", order=[{"col": "date_added", "dir": "DESC"}], limit=1)
    assert int(newest["total"]) == 2 and newest["stats"][0]["lead_id"] == bob  # a page and one more row
    clicks = stats(api, "focus_stats", where=[{"col": "type", "expr": "eq", "val": "click"}])
    assert int(clicks["total"]) == 1 and clicks["stats"][0]["lead_id"] == ann
    of_bob = stats(api, "focus_stats", where=[{"col": "lead_id", "expr": "eq", "val": bob}])
    assert [r["type"] for r in of_bob["stats"]] == ["view"]
    assert stats(api, "focus_stats", start=3, limit=10)["stats"][0]["lead_id"] == bob
    by_type = [r["type"] for r in stats(api, "focus_stats", order=[{"col": "type"}])["stats"]]
    assert by_type == sorted(by_type) and set(by_type) == {"click", "view"}
    assert_error(api.get("/api/stats/focus_stats?order[0][col]=nope"), 400, field="order[0][col]")
    assert_error(api.get("/api/stats/focus_stats?where[0][col]=nope&where[0][val]=1"), 400, field="where[0][col]")


def test_focus_stats_are_a_contact_table(api):
    _focus_world(api)
    focus_only = _as(api, "focuser", {"focus:items": ["viewother"]})
    assert api.get("/api/stats/focus_stats").status_code == 200
    answer = focus_only.get("/api/stats/focus_stats")
    assert_error(answer, 403)
    assert "lead_id" not in str(answer.json) and "view" not in str(answer.json.get("stats", ""))
    own = _as(api, "owncontacts", {"lead:leads": ["viewown"], "focus:items": ["viewother"]})
    assert_error(own.get("/api/stats/focus_stats"), 403)
    every = _as(api, "everycontact", {"lead:leads": ["viewother"]})
    assert int(stats(every, "focus_stats")["total"]) == 4


def test_an_unknown_table_answers_the_catalogue(api):
    catalogue = api.get("/api/stats").json
    for path in ("/api/stats/no_such_table", "/api/stats/no_such_table?where[0][col]=x&limit=5"):
        answer = api.get(path)
        assert answer.status_code == 200 and answer.json == catalogue
    hooker = _as(api, "hooker", {"webhook:webhooks": ["viewown"]})
    assert hooker.get("/api/stats/no_such_table").json == catalogue  # names only, as GET /api/stats
    nobody = _as(api, "nobody", {"email:emails": ["viewown"]})
    assert_error(nobody.get("/api/stats/no_such_table"), 403)
