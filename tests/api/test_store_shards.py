"""The store's key layout over DynamoDB (docs/storage.md, "Sharded keys"): hot kinds spread over
several partition keys, read back in id order by merging; the port's answers stay the same."""

import json

import pytest

from chalicelib import config
from chalicelib.store import entities, keys, reshard
from chalicelib.store.common import Missing, Stale, Tally
from chalicelib.store.models import Counter, Entity
from tests.bench.conftest import dynamodb_calls

pytestmark = [pytest.mark.aws, pytest.mark.usefixtures("fresh")]  # about DynamoDB: over moto

SHARDS = config.active().SHARDED_KINDS["contact"]


def _contacts(ids):
    for i in ids:
        entities.create("contact", {"id": i, "email": f"c{i:03}@x.com"}, email=f"c{i:03}@x.com")


def _stored_under(key):
    return [int(item.id) for item in Entity.query(key)]


def test_sharded_kind_is_stored_under_one_key_per_shard():
    _contacts(range(1, 3 * SHARDS + 1))
    assert _stored_under("contact") == []  # no write lands on the one key of the kind
    assert _stored_under("contact@5") == [5, 5 + SHARDS, 5 + 2 * SHARDS]
    assert entities.get("contact", 5 + SHARDS)["email"] == f"c{5 + SHARDS:03}@x.com"
    assert set(entities.batch_get("contact", [1, 2, 999])) == {1, 2}
    assert set(entities.batch_get_keys([("contact", 3), ("tag", 1), ("contact", 4)])) == {
        ("contact", 3),
        ("contact", 4),
    }


def test_sharded_kind_lists_in_id_order_both_ways_with_ranges_and_limits():
    ids = list(range(1, 3 * SHARDS + 7))
    _contacts(ids)
    assert [d["id"] for d in entities.iterate("contact")] == ids
    assert [d["id"] for d in entities.iterate("contact", descending=True)] == ids[::-1]
    assert [d["id"] for d in entities.iterate("contact", limit=5)] == ids[:5]
    assert [d["id"] for d in entities.iterate("contact", descending=True, limit=4, between=(1, 40))] == [40, 39, 38, 37]
    assert [d["id"] for d in entities.iterate("contact", between=(10, 14))] == [10, 11, 12, 13, 14]
    assert entities.ids_by_email("contact", "C01") == list(range(10, 20))


def test_a_page_of_a_sharded_kind_is_one_query_per_shard_reading_about_the_page():
    _contacts(range(1, 4 * SHARDS + 1))
    with dynamodb_calls() as calls:
        page = [d["id"] for d in entities.iterate("contact", limit=31, between=(20, 10**9))]
    assert page == list(range(20, 51))
    assert calls == {"Query": SHARDS}  # each shard's first page holds its share of the page


def _feed_keys_of(name):
    return {item.feed for item in Entity.scan() if item.feed and item.feed.startswith(name)}


def test_a_feed_is_written_over_its_shards_and_read_back_merged_in_id_order():
    for i in range(1, 21):
        kind = "contact" if i % 2 else f"timeline#{i}"
        entities.create(kind, {"id": i, "_feed": "timeline#0"})
    assert _feed_keys_of("timeline#0") == {f"timeline#0@{r}" for r in range(config.active().FEED_SHARDS)}
    assert [d["id"] for d in entities.feed("timeline#0")] == list(range(20, 0, -1))
    assert [d["id"] for d in entities.feed("timeline#0", descending=False)] == list(range(1, 21))
    assert entities.get("contact", 3)["_feed"] == "timeline#0"  # the logical feed, as written


def test_set_feed_and_put_index_the_document_under_its_shard():
    for i in range(1, 11):
        entities.create("tag", {"id": i})
        entities.set_feed("tag", i, "owned#tag#7")
    entities.put("tag", {"id": 11, "_feed": "owned#tag#7"})
    assert [d["id"] for d in entities.feed("owned#tag#7", descending=False)] == list(range(1, 12))
    assert {item.feed for item in Entity.scan() if item.feed} == {
        f"owned#tag#7@{i % config.active().FEED_SHARDS}" for i in range(1, 12)
    }
    entities.set_feed("tag", 2, None)
    assert 2 not in [d["id"] for d in entities.feed("owned#tag#7")]


def _count_items(kind):
    return {item.name: int(item.value) for item in Counter.scan() if item.name.partition("@")[0] == f"count#{kind}"}


def test_row_counts_of_a_sharded_kind_are_spread_over_shards_and_summed_on_read():
    _contacts(range(1, 41))
    for i in (3, 4, 20):
        entities.delete("contact", i)
    items = _count_items("contact")
    assert (
        "count#contact" not in items and len(items) == config.active().COUNT_SHARDS
    )  # each create counts in its own shard
    assert sum(items.values()) == 37
    with dynamodb_calls() as calls:
        assert entities.count("contact") == 37
    assert calls == {"BatchGetItem": 1}
    Counter("count#contact", value=5).save()  # a count from before the kind was sharded still counts
    assert entities.counters(["count#contact", "count#tag"]) == {"count#contact": 42, "count#tag": 0}


def test_a_batch_create_adds_its_count_to_one_shard_and_a_tally_counts_too():
    results = entities.create_many([{"kind": "contact", "doc": {"id": i}} for i in range(101, 131)])
    assert results == [None] * 30
    assert _count_items("contact") == {f"count#contact@{101 % config.active().COUNT_SHARDS}": 30}
    entities.create("contact", {"id": 7}, derived=[("device", 70, {"id": 70}), ("device", 0, Tally(1))])
    assert entities.count("device") == 1 and entities.count("contact") == 31
    assert _count_items("device") == {f"count#device@{7 % config.active().COUNT_SHARDS}": 1}


def test_a_write_of_one_item_is_a_conditional_put_not_a_transaction():
    entities.create("contact", {"id": 9, "city": "A"}, {"email": "a@x.com"})
    read = entities.get("contact", 9)
    with dynamodb_calls() as calls:
        entities.replace("contact", dict(read, city="B"), {"email": "a@x.com"}, {"email": "a@x.com"})
    assert calls == {"PutItem": 1}
    with pytest.raises(Stale):  # the same condition: the revision read
        entities.replace("contact", dict(read, city="C"))
    with pytest.raises(Missing):
        entities.replace("contact", {"id": 10, "_rev": 1})
    assert entities.get("contact", 9) == {"id": 9, "city": "B", "_rev": 2} and entities.get("contact", 10) is None
    read = entities.get("contact", 9)
    with dynamodb_calls() as calls:  # a unique value moving: its keys change with the document, all or nothing
        entities.replace("contact", read, {"email": "a@x.com"}, {"email": "b@x.com"})
    assert calls == {"TransactWriteItems": 1}


def _old_layout():
    """Items as the store wrote them before sharding: contacts under `contact`, feeds and counts unsharded."""
    for i in range(1, 41):
        Entity("contact", i, doc=json.dumps({"id": i}), rev=1, email=f"c{i:03}@x.com", feed="owned#contact#1").save()
        Entity(f"timeline#{i}", 1000 + i, doc=json.dumps({"id": 1000 + i}), rev=1, feed="timeline#1").save()
    Counter("count#contact", value=40).save()
    Counter(f"count#contact@{config.active().COUNT_SHARDS + 3}", value=2).save()  # a shard of a larger COUNT_SHARDS


def test_reshard_makes_items_written_before_sharding_readable_and_is_idempotent(capsys):
    from chalicelib import cli

    _old_layout()
    assert entities.get("contact", 5) is None and list(entities.feed("timeline#1")) == []  # unreadable
    assert cli.main(["--json", "storage", "reshard"], config.active()) == 0
    done = json.loads(capsys.readouterr().out)
    assert (done["moved"], done["refed"], done["counts"]) == (40, 40, 1)
    assert done["headed"] == 0  # moved documents are keyed in `emailhead` as they are put
    assert entities.get("contact", 5) == {"id": 5, "_rev": 1, "_feed": "owned#contact#1"}
    assert [d["id"] for d in entities.iterate("contact", descending=True, limit=3)] == [40, 39, 38]
    assert entities.ids_by_email("contact", "c00") == list(range(1, 10))
    assert [d["id"] for d in entities.feed("owned#contact#1", descending=False)] == list(range(1, 41))
    assert [d["id"] for d in entities.feed("timeline#1")] == list(range(1040, 1000, -1))
    assert entities.count("contact") == 42
    assert _stored_under("contact") == []
    assert reshard.reshard() == {"scanned": done["scanned"], "moved": 0, "refed": 0, "headed": 0, "counts": 0}


def test_reshard_keys_emails_written_before_the_emailhead_index_so_email_searches_find_them():
    for i in range(1, 13):  # at home, as written before `emailhead`: no `head`
        Entity(keys.partition("contact", i), i, doc=json.dumps({"id": i}), rev=1, email=f"c{i:03}@x.com").save()
    assert entities.ids_by_email("contact", "c00") == []
    assert reshard.reshard()["headed"] == 12
    assert entities.ids_by_email("contact", "c00") == list(range(1, 10))
    assert entities.ids_by_email("contact", "C01") == [10, 11, 12]
    assert reshard.reshard()["headed"] == 0


def test_reshard_keeps_an_edit_made_after_a_move_when_a_stopped_run_is_finished():
    _old_layout()
    Entity("contact@5", 5, doc=json.dumps({"id": 5, "city": "edited"}), rev=2).save()  # moved, then edited
    reshard.reshard()
    assert entities.get("contact", 5) == {"id": 5, "city": "edited", "_rev": 2}
    assert _stored_under("contact") == []
