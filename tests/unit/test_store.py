"""The entity repository over moto: transactions are all-or-nothing, uniques follow documents."""
import pytest

from chalicelib.store import entities as store


@pytest.fixture
def kind(fresh):
    return "tag"


def _doc(entity_id, tag):
    return {"id": entity_id, "tag": tag}


def test_create_counts_and_claims_unique(kind):
    store.create(kind, _doc(1, "vip"), {"tag": "vip"})
    assert store.get(kind, 1) == dict(_doc(1, "vip"), _rev=1)
    assert store.count(kind) == 1
    assert store.lookup(kind, "tag", "VIP") == 1


def test_conflicting_create_writes_nothing(kind):
    store.create(kind, _doc(1, "vip"), {"tag": "vip"})
    with pytest.raises(store.Conflict) as raised:
        store.create(kind, _doc(2, "vip"), {"tag": "vip"})
    assert raised.value.fields == ["tag"]
    assert store.get(kind, 2) is None
    assert store.count(kind) == 1


def test_replace_moves_unique_values(kind):
    store.create(kind, _doc(1, "old"), {"tag": "old"})
    store.replace(kind, _doc(1, "new"), {"tag": "old"}, {"tag": "new"})
    assert store.lookup(kind, "tag", "old") is None
    assert store.lookup(kind, "tag", "new") == 1


def test_replace_is_conditional_on_the_revision_read(kind):
    store.create(kind, _doc(1, "one"))
    first, second = store.get(kind, 1), store.get(kind, 1)
    first["tag"] = "first"
    store.replace(kind, first)
    assert first["_rev"] == 2  # the document written is current again
    with pytest.raises(store.Stale):
        store.replace(kind, dict(second, tag="second"), extra=[("timeline#1", {"id": 1})])
    assert store.get(kind, 1) == {"id": 1, "tag": "first", "_rev": 2}
    assert store.get("timeline#1", 1) is None
    store.replace(kind, dict(first, tag="again"))
    assert store.get(kind, 1)["_rev"] == 3


def test_derived_items_are_put_and_deleted_with_the_document(kind):
    store.create(kind, _doc(1, "one"), derived=[("members#5", 1, {"manuallyAdded": True}), ("members#6", 1, {})])
    assert store.get("members#5", 1) == {"id": 1, "manuallyAdded": True, "_rev": 1}
    store.replace(kind, store.get(kind, 1), derived=[("members#5", 1, None)])
    assert store.get("members#5", 1) is None and store.get("members#6", 1) is not None


def test_an_unconditional_put_still_moves_the_revision(kind):
    store.put(kind, _doc(1, "one"))
    read = store.get(kind, 1)
    store.put(kind, dict(_doc(1, "two"), _rev=0))
    assert store.get(kind, 1) == {"id": 1, "tag": "two", "_rev": 2}
    with pytest.raises(store.Stale):
        store.replace(kind, dict(read, tag="late"))


def test_replace_of_a_vanished_document_is_missing(kind):
    with pytest.raises(store.Missing):
        store.replace(kind, _doc(9, "x"), {}, {"tag": "x"})
    assert store.lookup(kind, "tag", "x") is None


def test_delete_uncounts_and_releases(kind):
    store.create(kind, _doc(1, "vip"), {"tag": "vip"})
    store.delete(kind, 1, {"tag": "vip"})
    assert store.get(kind, 1) is None and store.count(kind) == 0
    assert store.lookup(kind, "tag", "vip") is None




def test_allocate_ids_reserves_consecutive_blocks(fresh):
    first = store.allocate_ids("widget", 3)
    assert first == [1, 2, 3]
    assert store.allocate_ids("widget") == [4]


def test_versioned_writes_bump_the_kind_version(kind):
    before = store.versions([kind])[kind]
    store.create(kind, _doc(1, "a"), versioned=True)
    store.replace(kind, _doc(1, "b"), versioned=True)
    store.delete(kind, 1, versioned=True)
    assert store.versions([kind])[kind] == before + 3


def test_email_index_finds_by_prefix(fresh):
    store.create("contact", {"id": 1}, email="Ann@Example.com")
    store.create("contact", {"id": 2}, email="anna@example.com")
    store.create("contact", {"id": 3}, email="bob@example.com")
    assert sorted(store.ids_by_email("contact", "ann")) == [1, 2]
    assert store.ids_by_email("contact", "ann@example.com") == [1]


def test_every_table_connection_shares_one_botocore_data_loader(fresh):
    from chalicelib.store import models
    loaders = {id(model._get_connection().connection.session.get_component("data_loader"))
               for model in models.MODELS}
    assert loaders == {id(models._LOADER)}
