"""The store port's semantics, on each implementation: DynamoDB over moto (`entities`, api tier)
and the in-memory store of the unit tier (`memory`). Transactions are all-or-nothing, uniques
follow documents, revisions guard writes."""

import pytest

from chalicelib.store.common import TooLarge
from chalicelib.store.port import Checked, Conflict, Missing, Stale, Tally

KIND = "tag"


@pytest.fixture(params=["memory", pytest.param("dynamodb", marks=pytest.mark.aws)])
def store(request):
    """The implementation under test."""
    if request.param == "dynamodb":
        request.getfixturevalue("fresh")
        from chalicelib.store import entities

        return entities
    return request.getfixturevalue("memory_store")


@pytest.fixture(params=[KIND, "contact"])
def kind(store, request):
    """The kind written: one partition key (`tag`), or sharded over several (`contact`, SHARDED_KINDS)."""
    return request.param


def _doc(entity_id, tag):
    return {"id": entity_id, "tag": tag}


def test_create_counts_and_claims_unique(store, kind):
    store.create(kind, _doc(1, "vip"), {"tag": "vip"})
    assert store.get(kind, 1) == dict(_doc(1, "vip"), _rev=1)
    assert store.count(kind) == 1
    assert store.lookup(kind, "tag", "VIP") == 1


def test_conflicting_create_writes_nothing(store, kind):
    store.create(kind, _doc(1, "vip"), {"tag": "vip"})
    with pytest.raises(Conflict) as raised:
        store.create(kind, _doc(2, "vip"), {"tag": "vip"})
    assert raised.value.fields == ["tag"]
    assert store.get(kind, 2) is None
    assert store.count(kind) == 1


def test_a_document_over_an_items_size_is_refused_and_nothing_is_written(store, kind, configure):
    import os

    configure(DOCUMENT_STORED_MAX_BYTES=5_000)
    big = os.urandom(6_000).hex()  # hex: compresses to about half, still over 5,000 bytes
    with pytest.raises(TooLarge):
        store.create(kind, dict(_doc(1, "big"), note=big), {"tag": "big"})
    assert store.get(kind, 1) is None and store.count(kind) == 0 and store.lookup(kind, "tag", "big") is None
    results = store.create_many(
        [
            {"kind": kind, "doc": dict(_doc(2, "big"), note=big)},
            {"kind": kind, "doc": _doc(3, "small")},
        ]
    )
    assert isinstance(results[0], TooLarge) and results[1] is None
    assert store.get(kind, 2) is None and store.get(kind, 3)["tag"] == "small"
    configure(DOCUMENT_JSON_MAX_BYTES=1_000)
    with pytest.raises(TooLarge):
        store.create(kind, dict(_doc(4, "long"), note="a" * 1_000))  # compresses well, but its JSON is over


def test_replace_moves_unique_values(store, kind):
    store.create(kind, _doc(1, "old"), {"tag": "old"})
    store.replace(kind, _doc(1, "new"), {"tag": "old"}, {"tag": "new"})
    assert store.lookup(kind, "tag", "old") is None
    assert store.lookup(kind, "tag", "new") == 1


def test_replace_is_conditional_on_the_revision_read(store, kind):
    store.create(kind, _doc(1, "one"))
    first, second = store.get(kind, 1), store.get(kind, 1)
    first["tag"] = "first"
    store.replace(kind, first)
    assert first["_rev"] == 2  # the document written is current again
    with pytest.raises(Stale):
        store.replace(kind, dict(second, tag="second"), extra=[("timeline#1", {"id": 1})])
    assert store.get(kind, 1) == {"id": 1, "tag": "first", "_rev": 2}
    assert store.get("timeline#1", 1) is None
    store.replace(kind, dict(first, tag="again"))
    assert store.get(kind, 1)["_rev"] == 3


def test_a_delete_given_the_revision_read_is_refused_once_it_moved(store, kind):
    store.create(kind, _doc(1, "first"), derived=[("tag#unlisted", 0, Tally(1))])
    read = store.get(kind, 1)
    store.replace(kind, dict(read, tag="moved"))
    with pytest.raises(Stale):  # written since the read: nothing deleted, nothing counted
        store.delete(kind, 1, rev=read["_rev"], derived=[("tag#unlisted", 0, Tally(-1))])
    assert store.get(kind, 1)["tag"] == "moved" and store.count(kind) == 1 and store.count("tag#unlisted") == 1
    store.delete(kind, 1, rev=read["_rev"] + 1, derived=[("tag#unlisted", 0, Tally(-1))])
    assert store.get(kind, 1) is None and store.count(kind) == 0 and store.count("tag#unlisted") == 0
    with pytest.raises(Missing):
        store.delete(kind, 1, rev=read["_rev"] + 1)


def test_derived_items_are_put_and_deleted_with_the_document(store, kind):
    store.create(kind, _doc(1, "one"), derived=[("members#5", 1, {"manuallyAdded": True}), ("members#6", 1, {})])
    assert store.get("members#5", 1) == {"id": 1, "manuallyAdded": True, "_rev": 1}
    store.replace(kind, store.get(kind, 1), derived=[("members#5", 1, None)])
    assert store.get("members#5", 1) is None and store.get("members#6", 1) is not None


def test_a_checked_item_is_put_only_at_the_revision_read(store, kind):
    """Another document kept in step with a write (a parent's list of children): stale, the whole write
    is `Stale` and nothing of it is stored, whether the write creates, replaces or deletes."""
    store.create(kind, _doc(1, "parent"))
    parent = store.get(kind, 1)
    store.create(kind, _doc(2, "child"), derived=[(kind, 1, Checked(dict(parent, kids=[2]), parent["_rev"]))])
    assert store.get(kind, 1) == {"id": 1, "tag": "parent", "kids": [2], "_rev": 2}
    for write in (
        lambda: store.create(
            kind, _doc(3, "late"), derived=[(kind, 1, Checked(dict(parent, kids=[3]), parent["_rev"]))]
        ),
        lambda: store.replace(kind, store.get(kind, 2), derived=[(kind, 1, Checked(parent, parent["_rev"]))]),
        lambda: store.delete(kind, 2, derived=[(kind, 1, Checked(parent, parent["_rev"]))]),
    ):
        with pytest.raises(Stale):
            write()
    assert store.get(kind, 3) is None and store.get(kind, 2)["_rev"] == 1
    assert store.get(kind, 1)["kids"] == [2] and store.count(kind) == 2


def test_an_unconditional_put_still_moves_the_revision(store, kind):
    store.put(kind, _doc(1, "one"))
    read = store.get(kind, 1)
    store.put(kind, dict(_doc(1, "two"), _rev=0))
    assert store.get(kind, 1) == {"id": 1, "tag": "two", "_rev": 2}
    with pytest.raises(Stale):
        store.replace(kind, dict(read, tag="late"))


def test_replace_of_a_vanished_document_is_missing(store, kind):
    with pytest.raises(Missing):
        store.replace(kind, _doc(9, "x"), {}, {"tag": "x"})
    assert store.lookup(kind, "tag", "x") is None


def test_delete_uncounts_and_releases(store, kind):
    store.create(kind, _doc(1, "vip"), {"tag": "vip"})
    store.delete(kind, 1, {"tag": "vip"})
    assert store.get(kind, 1) is None and store.count(kind) == 0
    assert store.lookup(kind, "tag", "vip") is None


def test_allocate_ids_reserves_consecutive_blocks(store):
    first = store.allocate_ids("widget", 3)
    assert first == [1, 2, 3]
    assert store.allocate_ids("widget") == [4]


def test_versioned_writes_bump_the_kind_version(store, kind):
    before = store.versions([kind])[kind]
    store.create(kind, _doc(1, "a"), versioned=True)
    store.replace(kind, _doc(1, "b"), versioned=True)
    store.delete(kind, 1, versioned=True)
    assert store.versions([kind])[kind] == before + 3


def test_email_index_finds_by_prefix(store):
    store.create("contact", {"id": 1}, email="Ann@Example.com")
    store.create("contact", {"id": 2}, email="anna@example.com")
    store.create("contact", {"id": 3}, email="bob@example.com")
    assert sorted(store.ids_by_email("contact", "ann")) == [1, 2]
    assert store.ids_by_email("contact", "ann@example.com") == [1]


@pytest.mark.aws
def test_every_table_connection_shares_one_botocore_data_loader(fresh):
    from chalicelib.store import models

    loaders = {id(model._get_connection().connection.session.get_component("data_loader")) for model in models.MODELS}
    assert loaders == {id(models._LOADER)}


def test_unique_values_compare_trimmed_and_case_insensitive(store, kind):
    store.create(kind, _doc(1, "VIP"), {"tag": " VIP "})
    assert store.lookup(kind, "tag", "vip") == 1
    assert store.lookup_many(kind, [("tag", "Vip"), ("tag", "other")]) == {("tag", "Vip"): 1, ("tag", "other"): None}
    with pytest.raises(Conflict):
        store.create(kind, _doc(2, "vip"), {"tag": "vip"})


def test_blank_unique_values_hold_nothing(store, kind):
    store.create(kind, _doc(1, ""), {"tag": ""})
    store.create(kind, _doc(2, ""), {"tag": None})
    assert store.count(kind) == 2 and store.lookup(kind, "tag", "") is None


def test_a_create_on_a_taken_id_is_a_conflict_on_the_id(store, kind):
    store.create(kind, _doc(1, "a"))
    with pytest.raises(Conflict) as raised:
        store.create(kind, _doc(1, "b"), {"tag": "b"})
    assert raised.value.fields == ["id"] and store.lookup(kind, "tag", "b") is None
    assert store.get(kind, 1)["tag"] == "a"


def test_a_replace_taking_a_held_value_writes_nothing(store, kind):
    store.create(kind, _doc(1, "one"), {"tag": "one"})
    store.create(kind, _doc(2, "two"), {"tag": "two"})
    with pytest.raises(Conflict) as raised:
        store.replace(
            kind,
            dict(store.get(kind, 2), tag="one"),
            {"tag": "two"},
            {"tag": "one"},
            derived=[("members#1", 2, {"x": 1})],
        )
    assert raised.value.fields == ["tag"]
    assert store.get(kind, 2)["tag"] == "two" and store.lookup(kind, "tag", "two") == 2
    assert store.get("members#1", 2) is None


def test_extra_documents_and_tallies_join_the_write(store, kind):
    store.create(kind, _doc(1, "a"), extra=[("timeline#1", {"id": 7, "type": "x"})], derived=[("device", 0, Tally(2))])
    assert store.get("timeline#1", 7) == {"id": 7, "type": "x", "_rev": 1}
    assert store.count("device") == 2 and store.get("device", 0) is None
    store.replace(kind, store.get(kind, 1), derived=[("device", 0, Tally(-1))])
    assert store.count("device") == 1


def test_a_named_counter_moves_with_the_write_and_only_if_it_commits(store, kind):
    store.add("variantread#email#1", 5)
    store.create(kind, _doc(1, "a"), derived=[("variantread#email#1", 0, Tally(-5, "variantread#email#1"))])
    assert store.counters(["variantread#email#1"]) == {"variantread#email#1": 0}
    stale = dict(store.get(kind, 1), _rev=99)
    with pytest.raises(Stale):
        store.replace(kind, stale, derived=[("variantread#email#1", 0, Tally(3, "variantread#email#1"))])
    assert store.counters(["variantread#email#1"])["variantread#email#1"] == 0


def test_documents_round_trip_as_json(store, kind):
    store.create(kind, {"id": 1, "values": {"n": 1.5, "list": [1, "a", None]}, "map": {3: "int key"}, "t": (1, 2)})
    assert store.get(kind, "1") == {
        "id": 1,
        "values": {"n": 1.5, "list": [1, "a", None]},
        "map": {"3": "int key"},
        "t": [1, 2],
        "_rev": 1,
    }


def test_iterate_in_id_order_with_ranges_limits_and_direction(store, kind):
    for i in (5, 1, 3, 2, 4):
        store.create(kind, _doc(i, str(i)))
    store.create("other", _doc(9, "9"))
    assert [d["id"] for d in store.iterate(kind)] == [1, 2, 3, 4, 5]
    assert [d["id"] for d in store.iterate(kind, descending=True, limit=2)] == [5, 4]
    assert [d["id"] for d in store.iterate(kind, between=(2, 4))] == [2, 3, 4]
    assert [d["id"] for d in store.iterate(kind, descending=True, between=(2, 4), limit=2)] == [4, 3]
    assert list(store.iterate("nothing")) == []


def test_batch_gets_skip_missing_documents(store, kind):
    store.create(kind, _doc(1, "a"))
    store.create("other", _doc(1, "b"))
    assert set(store.batch_get(kind, [1, "1", 2])) == {1}
    found = store.batch_get_keys([(kind, 1), ("other", "1"), ("other", 2)])
    assert {key: doc["tag"] for key, doc in found.items()} == {(kind, 1): "a", ("other", 1): "b"}


def test_feeds_list_documents_of_any_kind_by_id(store, kind):
    from chalicelib.store.port import FEED

    store.create(kind, dict(_doc(1, "a"), **{FEED: "owned#tag#1"}))
    store.create("other", dict(_doc(2, "b"), **{FEED: "owned#tag#1"}))
    store.create(kind, dict(_doc(3, "c"), **{FEED: "owned#tag#2"}))
    store.create(kind, _doc(4, "d"))
    assert [d["id"] for d in store.feed("owned#tag#1")] == [2, 1]
    assert [d["id"] for d in store.feed("owned#tag#1", descending=False)] == [1, 2]
    assert store.get(kind, 1)[FEED] == "owned#tag#1"
    store.set_feed(kind, 4, "owned#tag#1")
    store.set_feed(kind, 1, None)
    assert [d["id"] for d in store.feed("owned#tag#1", descending=False)] == [2, 4]
    assert FEED not in store.get(kind, 1) and store.get(kind, 4)["_rev"] == 1


def test_a_replace_keeps_the_feed_it_read(store, kind):
    from chalicelib.store.port import FEED

    store.create(kind, dict(_doc(1, "a"), **{FEED: "owned#tag#1"}))
    store.replace(kind, dict(store.get(kind, 1), tag="b"))
    assert [d["tag"] for d in store.feed("owned#tag#1")] == ["b"]


def test_merge_hands_the_losers_value_to_the_survivor(store, kind):
    store.create(kind, _doc(1, "old"), {"tag": "old", "alias": "a1"})
    store.create(kind, _doc(2, "young"), {"tag": "young", "alias": "a2"})
    survivor, loser = store.get(kind, 1), store.get(kind, 2)
    store.merge(
        kind,
        dict(survivor, tag="young"),
        (2, loser["_rev"], {"tag": "young", "alias": "a2"}),
        ({"tag": "old", "alias": "a1"}, {"tag": "young", "alias": "a1"}),
        extra=[("timeline#1", {"id": 5})],
        derived=[("merged", 2, {"into": 1})],
    )
    assert store.get(kind, 2) is None and store.get(kind, 1)["tag"] == "young" and store.get(kind, 1)["_rev"] == 2
    assert store.lookup(kind, "tag", "young") == 1 and store.lookup(kind, "tag", "old") is None
    assert store.lookup(kind, "alias", "a2") is None and store.lookup(kind, "alias", "a1") == 1
    assert store.count(kind) == 1 and store.get("merged", 2)["into"] == 1 and store.get("timeline#1", 5)


def test_merge_is_conditional_on_both_revisions(store, kind):
    store.create(kind, _doc(1, "one"), {"tag": "one"})
    store.create(kind, _doc(2, "two"), {"tag": "two"})
    survivor, loser = store.get(kind, 1), store.get(kind, 2)
    store.replace(kind, dict(loser, tag="moved"))
    with pytest.raises(Stale):
        store.merge(kind, dict(survivor), (2, loser["_rev"], {"tag": "two"}), ({"tag": "one"}, {"tag": "one"}))
    assert store.get(kind, 2)["tag"] == "moved" and store.count(kind) == 2 and store.get(kind, 1)["_rev"] == 1


def test_merge_taking_a_third_entitys_value_is_a_conflict(store, kind):
    for i, tag in ((1, "one"), (2, "two"), (3, "three")):
        store.create(kind, _doc(i, tag), {"tag": tag})
    survivor, loser = store.get(kind, 1), store.get(kind, 2)
    with pytest.raises(Conflict) as raised:
        store.merge(
            kind, dict(survivor, tag="three"), (2, loser["_rev"], {"tag": "two"}), ({"tag": "one"}, {"tag": "three"})
        )
    assert raised.value.fields == ["tag"] and store.get(kind, 2) is not None


def test_create_many_writes_what_it_can_and_reports_the_rest(store, kind):
    store.create(kind, _doc(1, "held"), {"tag": "held"})
    entries = [dict(kind=kind, doc=_doc(i, f"t{i}"), uniques={"tag": f"t{i}"}) for i in range(2, 6)]
    entries.insert(2, dict(kind=kind, doc=_doc(9, "held"), uniques={"tag": "held"}))
    results = store.create_many(entries)
    assert [type(r).__name__ if r else None for r in results] == [None, None, "Conflict", None, None]
    assert store.count(kind) == 5 and store.get(kind, 9) is None
    assert all(e["doc"]["_rev"] == 1 for i, e in enumerate(entries) if i != 2)


def test_counters_and_one_time_markers(store):
    assert store.add("count#x", 3) == 3 and store.add("count#x", -1) == 2
    assert store.counters(["count#x", "count#y"]) == {"count#x": 2, "count#y": 0}
    assert store.count("x") == 2 and store.last_id("widget") == 0
    store.allocate_ids("widget", 4)
    assert store.last_id("widget") == 4
    assert not store.marked("once") and store.claim("once") and not store.claim("once") and store.marked("once")


def test_remove_is_unconditional(store, kind):
    store.put(kind, _doc(1, "a"))
    store.remove(kind, 1)
    store.remove(kind, 2)
    assert store.get(kind, 1) is None and store.count(kind) == 0


def test_put_if_writes_only_while_absent_or_at_the_revision_read(store, kind):
    doc = _doc(1, "new")
    store.put_if(kind, doc)
    assert doc["_rev"] == 1 and store.get(kind, 1)["tag"] == "new"
    with pytest.raises(Conflict):
        store.put_if(kind, _doc(1, "again"))
    stored = store.get(kind, 1)
    stored["tag"] = "moved"
    store.put_if(kind, stored)
    with pytest.raises(Stale):
        store.put_if(kind, dict(stored, tag="late", _rev=1))
    assert store.get(kind, 1) == dict(_doc(1, "moved"), _rev=2)
    assert store.count(kind) == 0  # nothing counts such documents


def test_put_many_writes_every_item_unconditionally(store, kind):
    items = [(kind, _doc(n, f"t{n}")) for n in range(1, 31)]  # more than one BatchWriteItem
    store.put_many(items)
    assert [store.get(kind, n)["tag"] for n in range(1, 31)] == [f"t{n}" for n in range(1, 31)]
    assert items[0][1]["_rev"] == 1


def test_add_many_adds_to_several_counters_at_once(store):
    store.add("count#a", 2)
    store.add_many({"count#a": 3, "count#b": 1})
    assert store.counters(["count#a", "count#b"]) == {"count#a": 5, "count#b": 1}
