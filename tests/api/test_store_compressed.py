"""Compressed documents over DynamoDB (docs/storage.md, "Compressed documents"): a document whose JSON is
longer than `COMPRESS_ABOVE` is stored zlib-compressed in `z` instead of `doc`; reads accept both, so items
written before keep working; the port's answers are the same either way."""

import json
import zlib

import boto3
import pytest

from chalicelib import config
from chalicelib.store import entities, keys, reshard
from chalicelib.store.models import Entity
from devstack import capture
from devstack.capacity import units
from tests import motostate

pytestmark = [pytest.mark.aws, pytest.mark.usefixtures("fresh")]  # about DynamoDB: over moto


def _large(i, **more):
    """A document like a typical contact: ~1 KB of JSON of repetitive field names and values."""
    fields = {f"field{n}": f"value of field {n}" for n in range(40)}
    return {"id": i, "email": f"c{i}@example.com", **fields, **more}


def _raw(kind, i):
    """The item as a client reads it (GetItem), in DynamoDB's JSON: binary values as bytes."""
    client = boto3.client("dynamodb", region_name=config.active().AWS_REGION)
    key = {"kind": {"S": keys.partition(kind, i)}, "id": {"N": str(i)}}
    return client.get_item(TableName=Entity.Meta.table_name, Key=key)["Item"]


def test_a_large_document_round_trips_compressed_in_one_write_unit():
    doc = _large(7)
    assert len(json.dumps(doc)) > 1024
    entities.create("contact", dict(doc), email=doc["email"])
    raw = _raw("contact", 7)
    assert "doc" not in raw and json.loads(zlib.decompress(raw["z"]["B"])) == doc
    assert units.write_units(units.item_size(next(i for _, i in _moto_items() if i["id"] == {"N": "7"}))) == 1
    assert entities.get("contact", 7) == dict(doc, _rev=1)
    assert entities.batch_get("contact", [7])[7] == dict(doc, _rev=1)
    assert [d["id"] for d in entities.iterate("contact")] == [7]
    assert entities.ids_by_email("contact", "c7@") == [7]


def _moto_items():
    """The entities table's items as moto holds them (binary values as base64 text)."""
    table = motostate.tables()[Entity.Meta.table_name]
    return [(table, capture.item_json(item)) for item in table.all_items()]


def test_a_small_document_stays_plain_text():
    entities.create("tag", {"id": 3, "tag": "vip"})
    raw = _raw("tag", 3)
    assert "z" not in raw and json.loads(raw["doc"]["S"]) == {"id": 3, "tag": "vip"}


def test_an_old_plain_item_of_a_large_document_is_read_as_it_is():
    doc = _large(11)
    Entity(keys.partition("contact", 11), 11, doc=json.dumps(doc), rev=4).save()  # as written before `z`
    Entity(keys.partition("event", 9), 9, doc=json.dumps(_large(9)), rev=1, feed=keys.feed_key("tl", 9)).save()
    assert entities.get("contact", 11) == dict(doc, _rev=4)
    assert [d["id"] for d in entities.iterate("contact")] == [11]
    assert [d["id"] for d in entities.feed("tl")] == [9]
    entities.replace("contact", dict(entities.get("contact", 11), city="Lyon"))  # rewritten: now compressed
    raw = _raw("contact", 11)
    assert "doc" not in raw and json.loads(zlib.decompress(raw["z"]["B"]))["city"] == "Lyon"
    assert entities.get("contact", 11) == dict(doc, city="Lyon", _rev=5)


def test_an_overwrite_switches_form_and_leaves_no_stale_copy():
    entities.put("note", {"id": 5, "text": "short"})
    assert set(_raw("note", 5)) >= {"doc"} and "z" not in _raw("note", 5)
    entities.put("note", _large(5))  # UpdateItem: `z` set, `doc` removed
    raw = _raw("note", 5)
    assert "doc" not in raw and "z" in raw and entities.get("note", 5) == dict(_large(5), _rev=2)
    entities.put("note", {"id": 5, "text": "short again"})  # and back: `doc` set, `z` removed
    raw = _raw("note", 5)
    assert "z" not in raw and entities.get("note", 5) == {"id": 5, "text": "short again", "_rev": 3}
    entities.create("contact", _large(8), derived=[("note", 5, _large(5, derived=True))])  # a derived overwrite
    assert "doc" not in _raw("note", 5) and entities.get("note", 5)["derived"] is True


def test_resharding_moves_a_compressed_document_as_it_is():
    packed = zlib.compress(json.dumps(_large(3)).encode())
    Entity("contact", 3, z=packed, rev=2, email="c3@example.com").save()  # compressed, under the unsharded key
    assert reshard.reshard()["moved"] == 1
    raw = _raw("contact", 3)
    assert raw["kind"]["S"] == keys.partition("contact", 3) and raw["z"]["B"] == packed and "doc" not in raw
    assert entities.get("contact", 3) == dict(_large(3), _rev=2)


def test_the_raw_item_helper_gives_a_compressed_document_as_text():
    entities.create("contact", _large(4, secret_word="Zyxwvut"))
    assert "Zyxwvut" not in json.dumps([item for _, item in _moto_items()])  # the words are hidden...
    assert "Zyxwvut" in json.dumps([item for _, item in motostate.stored_items()])  # ...and read back
