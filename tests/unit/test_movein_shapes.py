"""The mover reads Mautic 4 and 5 answers alike and remaps references (no HTTP: canned answers)."""

from chalicelib.movein import kinds, source
from chalicelib.movein.mapping import IdMap


class Canned:
    """An Api answering each GET with the next canned answer, recording the queries."""

    def __init__(self, *answers):
        self.answers, self.queries = list(answers), []

    def call(self, method, path, body=None, query=None, key=""):
        self.queries.append(query)
        return self.answers.pop(0)


def _map(kind, pairs):
    mapping = IdMap(kind)
    mapping.add([(a, b, None) for a, b in pairs.items()])
    return mapping


def test_total_as_string_collections_keyed_by_id_and_empty_arrays():
    assert source.total({"total": "12"}) == 12 and source.total({"total": 3}) == 3 and source.total([]) == 0
    keyed = {"total": "2", "campaigns": {"9": {"id": 9}, "4": {"id": 4}}}
    assert [d["id"] for d in source.rows(keyed, ("campaigns", "automations"))] == [4, 9]
    assert source.rows({"total": 0, "lists": []}, ("lists", "segments")) == []
    assert source.rows({"segments": [{"id": 1}]}, ("lists", "segments")) == [{"id": 1}]


def test_pages_by_start_for_mautic_and_by_cursor_when_given():
    mautic = Canned(
        {"total": "3", "contacts": {"1": {"id": 1}, "2": {"id": 2}}},
        {"total": "3", "contacts": {"3": {"id": 3}}},
        {"total": "3", "contacts": []},
    )
    assert [d["id"] for page in source.pages(mautic, "/contacts", ("contacts",)) for d in page] == [1, 2, 3]
    assert [q["start"] for q in mautic.queries] == [0, 2, 3] and mautic.queries[0]["orderBy"] == "id"
    ours = Canned({"total": 2, "contacts": {"1": {"id": 1}}, "next": "c1"}, {"total": 2, "contacts": {"2": {"id": 2}}})
    assert [d["id"] for page in source.pages(ours, "/contacts", ("contacts",)) for d in page] == [1, 2]
    assert ours.queries[1]["after"] == "c1" and "start" not in ours.queries[1]


class Offsets:
    """A Mautic list of `n` contacts answering any `start` (in any order, from several threads)."""

    def __init__(self, n):
        self.n, self.starts = n, []

    def call(self, method, path, body=None, query=None, key=""):
        start, limit = query["start"], query["limit"]
        self.starts.append(start)
        ids = range(start + 1, min(start + limit, self.n) + 1)
        return {"total": str(self.n), "contacts": {str(i): {"id": i} for i in ids} or []}


def test_mautic_pages_are_read_at_once_each_once_in_order():
    mautic = Offsets(1001)
    read = [d["id"] for page in source.pages_at_once(mautic, "/contacts", ("contacts",), 4) for d in page]
    assert read == list(range(1, 1002))
    assert sorted(mautic.starts) == [0, 200, 400, 600, 800, 1000, 1001]  # the last: anything added since


def test_an_automation_keeps_its_graph_with_temporary_ids_and_remapped_properties():
    (automation,) = [k for k in kinds.KINDS if k.name == "automation"]
    doc = {
        "id": 5,
        "name": "Onboard",
        "isPublished": True,
        "lists": [{"id": 2}],
        "events": [
            {"id": 11, "type": "email.send", "parent": None, "properties": {"email": 3}},
            {"id": 12, "type": "email.open", "parent": {"id": 11}, "decisionPath": None},
        ],
        "canvasSettings": {
            "nodes": [{"id": "11"}, {"id": "lists"}],
            "connections": [{"sourceId": "lists", "targetId": "11"}],
        },
    }
    maps = {"email": _map("email", {3: 30}), "segment": _map("segment", {2: 20})}
    out = automation.payload(doc, maps)
    assert out["isPublished"] is False and out["lists"] == [20] and "id" not in out
    assert [(e["id"], e["parent"], e.get("properties", {}).get("email")) for e in out["events"]] == [
        ("new11", None, 30),
        ("new12", "new11", None),
    ]
    assert [n["id"] for n in out["canvasSettings"]["nodes"]] == ["new11", "lists"]
    assert out["canvasSettings"]["connections"] == [{"sourceId": "lists", "targetId": "new11"}]


def test_segment_filters_are_remapped_and_one_naming_nothing_copied_waits():
    (segment,) = [k for k in kinds.KINDS if k.name == "segment"]
    filters = [
        {"id": 1, "field": "tags", "type": "tags", "operator": "in", "properties": {"filter": ["4"]}, "filter": ["4"]},
        {"id": 2, "field": "leadlist", "type": "leadlist", "operator": "in", "properties": {"filter": [9]}},
        {"id": 3, "field": "city", "type": "text", "operator": "=", "properties": {"filter": "9"}},
    ]
    out = segment.payload({"id": 1, "name": "S", "filters": filters}, {"tag": _map("tag", {4: 40})})
    assert [(f["field"], f["properties"]["filter"]) for f in out["filters"]] == [("tags", [40]), ("city", "9")]
    assert out["filters"][0]["filter"] == [40] and "id" not in out["filters"][0]


class Cursored:
    """The contact list of this service over `ids`: key order, `after` cursors (base64 "contact:<id>"),
    descending reads; `added` ids appear once the highest id has been read."""

    def __init__(self, ids, added=()):
        self.ids, self.added, self.calls = sorted(ids), list(added), 0

    def call(self, method, path, body=None, query=None, key=""):
        self.calls += 1
        limit = int(query["limit"])
        if query.get("orderByDir") == "DESC":
            found = sorted(self.ids, reverse=True)[:limit]
            self.ids, self.added = sorted(self.ids + self.added), []
        else:
            after = (
                int(source.base64.urlsafe_b64decode(query["after"] + "==").decode().split(":")[1])
                if "after" in query
                else 0
            )
            found = [i for i in self.ids if i > after][: limit + 1]
        answer = {"total": len(self.ids), "contacts": [{"id": i} for i in found[:limit]]}
        if len(found) > limit and query.get("orderByDir") != "DESC":
            answer["next"] = source._cursor("contact", found[limit - 1])
        return answer


def _read(api, workers=3):
    return [d["id"] for page in source.pages_at_once(api, "/contacts", ("contacts",), workers) for d in page]


def test_a_cursor_source_is_read_by_ranges_of_ids_each_document_once(monkeypatch):
    monkeypatch.setattr(source, "PAGE", 10)
    dense = [i for i in range(1, 120) if i % 7] + [130, 131]  # gaps, and a range holding fewer than a page
    api = Cursored(dense, added=[140, 150, 151])
    assert _read(api) == dense + [140, 150, 151]  # each once, in order, and those added during the read
    sparse = Cursored([1, 2, 3, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000, 90_000])
    assert _read(sparse, workers=2) == sparse.ids and sparse.calls <= 4  # too sparse for ranges: by the cursor


def test_a_mautic_event_log_becomes_a_journey_of_the_copys_events():
    from chalicelib.movein import journeys

    copies = {
        11: {"id": 101, "eventType": "action"},
        12: {"id": 102, "eventType": "condition"},
        13: {"id": 103, "eventType": "action"},
        14: {"id": 104, "eventType": "action"},
    }
    row = {"lead_id": "7", "date_added": "2025-03-01 10:00:00", "manually_added": "1", "rotation": "2"}
    logged = {  # Mautic 4 keys events by id; rows of an earlier rotation are left out
        "11": {"id": 11, "contactLog": [{"dateTriggered": "2025-03-01T10:00:00+00:00", "rotation": "2"}]},
        "12": {
            "id": 12,
            "contactLog": [{"dateTriggered": "2025-03-01T10:05:00+00:00", "nonActionPathTaken": 1, "rotation": 2}],
        },
        "13": {
            "id": 13,
            "contactLog": [
                {"dateTriggered": "2024-01-01T00:00:00+00:00", "rotation": 1},
                {"dateTriggered": None, "isScheduled": True, "triggerDate": "2025-04-01T09:00:00+00:00", "rotation": 2},
            ],
        },
        "14": {
            "id": 14,
            "contactLog": [
                {
                    "dateTriggered": "2025-03-02T00:00:00+00:00",
                    "metadata": {"failed": 1, "reason": "No email"},
                    "rotation": 2,
                }
            ],
        },
        "99": {"id": 99, "contactLog": [{"dateTriggered": "2025-03-01T10:00:00+00:00"}]},  # not in the copy
    }
    journey = journeys._journey(row, 55, copies, kinds.items(logged))
    assert journey == {
        "automation": 55,
        "dateAdded": "2025-03-01 10:00:00",
        "manuallyAdded": True,
        "rotation": 2,
        "done": [
            {"event": 101, "at": "2025-03-01T10:00:00+00:00", "status": "ok", "reason": None},
            {"event": 102, "at": "2025-03-01T10:05:00+00:00", "status": "no", "reason": None},
            {"event": 104, "at": "2025-03-02T00:00:00+00:00", "status": "failed", "reason": "No email"},
        ],
        "pending": [{"event": 103, "dueAt": "2025-04-01T09:00:00+00:00", "noPath": False}],
    }


def test_automation_members_are_paged_to_the_total_even_when_a_page_is_capped():
    from chalicelib.movein import journeys

    rows = [{"lead_id": str(n)} for n in range(1, 251)]
    api = Canned(
        {"total": "250", "contacts": rows[:100]}, {"total": 250, "contacts": rows[100:200]}, {"contacts": rows[200:]}
    )

    class Side:
        source = api

    assert [int(r["lead_id"]) for r in journeys._members(Side, 4)] == list(range(1, 251))
    assert [q["start"] for q in api.queries] == [0, 100, 200]
