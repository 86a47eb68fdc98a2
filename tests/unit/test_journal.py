"""The local stack's journal: record format, folding, compaction, and the capture of moto's writes."""

import base64
import logging

import pytest

from chalicelib import config
from devstack import capture, journal, snapshot

pytestmark = pytest.mark.aws  # about AWS itself: over moto


def _item(n, name="x"):
    return {"d": "t", "k": {"id": {"N": str(n)}}, "i": {"id": {"N": str(n)}, "name": {"S": name}}}


def test_a_record_round_trips_and_a_torn_or_corrupt_line_is_refused():
    line = journal.encode(_item(1))
    assert journal.decode(line) == _item(1)
    assert journal.decode(line[:-1]) is None
    assert journal.decode(line[:-5] + b"}}}}\n") is None
    assert journal.decode(b"garbage\n") is None


def test_fold_keeps_the_last_image_and_drops_deletions(tmp_path):
    journal.write_snapshot(tmp_path, 1, [_item(1), _item(2)])
    (tmp_path / "journal-000002.log").write_bytes(
        journal.encode(_item(1, "new"))
        + journal.encode({"d": "t", "k": {"id": {"N": "2"}}, "i": None})
        + journal.encode({"s": "a.png", "b": "YQ==", "c": "image/png"})
        + journal.encode({"q": "q", "m": "m1", "b": "{}", "t": 0})
    )
    (tmp_path / "journal-000003.log").write_bytes(journal.encode({"q": "q-dlq", "m": "m1", "b": "{}", "t": 0}))
    state = journal.fold(tmp_path)
    assert sorted(state.values(), key=str) == sorted(
        [_item(1, "new"), {"s": "a.png", "b": "YQ==", "c": "image/png"}, {"q": "q-dlq", "m": "m1", "b": "{}", "t": 0}],
        key=str,
    )
    assert journal.fold(tmp_path, upto=1) == {
        journal.identity(_item(1)): _item(1),
        journal.identity(_item(2)): _item(2),
    }


def test_a_torn_last_record_is_skipped_with_a_log_line(tmp_path, caplog):
    (tmp_path / "journal-000001.log").write_bytes(journal.encode(_item(1)) + journal.encode(_item(2))[:-7])
    with caplog.at_level(logging.WARNING):
        state = journal.fold(tmp_path)
    assert list(state.values()) == [_item(1)]
    assert "journal-000001.log: line 2 is torn or corrupt" in caplog.text


def test_compaction_folds_into_one_snapshot_and_removes_what_it_replaces(tmp_path):
    writes = journal.Journal(tmp_path)
    writes.append([_item(1), _item(2)])
    closed = writes.rotate()
    writes.append([_item(3)])
    writes.sync()
    assert not writes.due()  # a few bytes: not worth rewriting a snapshot
    assert journal.compact(tmp_path, closed) == 2
    assert sorted(journal.files(tmp_path)) == [("journal", 2), ("snapshot", 1)]
    assert len(journal.fold(tmp_path)) == 3
    writes.close()
    assert journal.Journal(tmp_path).number == 3


def _moto_state():
    """Every DynamoDB item, bucket object and queued message of moto, as folded journal records."""
    dynamodb, s3, sqs = snapshot._backends()
    records = []
    for name, table in dynamodb.tables.items():
        for item in table.all_items():
            attributes = capture.item_json(item)
            records.append({"d": name, "k": capture.key_of(table, attributes), "i": attributes})
    for key in s3.get_bucket(config.active().FILES_BUCKET).keys.values():
        records.append(
            {
                "s": key.name,
                "b": base64.b64encode(key.value).decode(),
                "c": key.metadata.get("content-type", "application/octet-stream"),
            }
        )
    for queue in sqs.queues.values():
        records.extend({"q": queue.name, "m": m.id, "b": m.body, "t": m.delayed_until} for m in queue._messages)
    return {journal.identity(record): record for record in records}


@pytest.fixture
def captured(fresh, tmp_path):
    """A journal directory holding moto's state now as a snapshot, and capturing what follows."""
    directory = tmp_path / "journal"
    directory.mkdir()
    journal.write_snapshot(directory, 0, _moto_state().values())
    writes = journal.Journal(directory)
    capture.start(writes)
    yield directory
    capture.stop()
    writes.close()


def test_snapshot_and_captured_writes_fold_to_what_moto_holds(api, captured):
    from chalicelib.store import files, queues

    first = api.post("/api/contacts/new", {"email": "one@example.com", "firstname": "One"}).json["contact"]
    api.post("/api/contacts/batch/new", [{"email": f"b{n}@example.com"} for n in range(5)])
    api.patch(f"/api/contacts/{first['id']}/edit", {"lastname": "Changed"})
    api.post("/api/contacts/new", {"email": "one@example.com", "city": "Lyon"})  # a duplicate: updates the first
    api.delete(f"/api/contacts/{first['id'] + 1}/delete")
    api.post(
        "/api/hooks/new",
        {"name": "h", "webhookUrl": "https://example.com/h", "triggers": ["mautic.lead_post_save_new"]},
    )
    api.post("/api/contacts/new", {"email": "queued@example.com"})  # a webhook message in SQS
    files.put("images/a.png", b"\x89PNG", "image/png")
    files.put("images/b.png", b"\x89PNG", "image/png")
    files.delete("images/b.png")
    queues.send("sends", [{"n": 1}, {"n": 2}])
    queues.delete("sends", queues.receive("sends", limit=1)[0][0])
    assert journal.fold(captured) == _moto_state()


def test_restore_loads_a_folded_journal_into_moto(api, captured):
    from chalicelib.store import files

    created = api.post("/api/contacts/new", {"email": "back@example.com"}).json["contact"]
    files.put("images/c.gif", b"GIF89a", "image/gif")
    expected = _moto_state()
    capture.stop()
    dynamodb, s3, sqs = snapshot._backends()
    for table in dynamodb.tables.values():
        table.items.clear()
    s3.delete_object(config.active().FILES_BUCKET, "images/c.gif")
    for queue in sqs.queues.values():
        queue._messages.clear()
    with capture.serialized():
        snapshot.restore(captured.parent)  # DATA_DIR holds the journal directory as `journal`
    assert api.get(f"/api/contacts/{created['id']}").status_code == 200
    assert files.get("images/c.gif") == (b"GIF89a", "image/gif")
    assert _moto_state() == expected


def test_a_data_dir_of_the_earlier_snapshot_format_becomes_the_first_snapshot(api, tmp_path):
    import json

    from chalicelib.store import files
    from chalicelib.store.models import Entity

    created = api.post("/api/contacts/new", {"email": "old@example.com"}).json["contact"]
    dynamodb, _, _ = snapshot._backends()
    table = dynamodb.get_table(Entity.Meta.table_name)
    (tmp_path / "dynamodb").mkdir()
    (tmp_path / "dynamodb" / f"{table.name}.json").write_text(
        json.dumps([capture.item_json(item) for item in table.all_items()])
    )
    (tmp_path / "s3" / "images").mkdir(parents=True)
    (tmp_path / "s3" / "images" / "old.png").write_bytes(b"PNG")
    (tmp_path / "s3-index.json").write_text(json.dumps(["images/old.png"]))
    table.items.clear()
    with capture.serialized():
        assert snapshot.restore(tmp_path) > 0
    assert api.get(f"/api/contacts/{created['id']}").status_code == 200
    assert files.get("images/old.png")[0] == b"PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal"]
    assert [p.name for p in (tmp_path / "journal").iterdir()] == ["snapshot-000000.jsonl"]


def test_a_compressed_document_survives_the_journal_and_a_restart(api, captured):
    """A large document is stored as binary (`z`, docs/storage.md): its record is JSON text (base64), and
    moto holds it again after a restore, readable and writable."""
    from chalicelib.store import entities, keys
    from chalicelib.store.models import Entity

    big = {"id": 4242, **{f"field{n}": f"value {n}" for n in range(60)}}
    entities.put("note", dict(big))
    (record,) = [r for r in journal.fold(captured).values() if r.get("k", {}).get("id") == {"N": "4242"}]
    assert "z" in record["i"] and "doc" not in record["i"]
    expected = _moto_state()
    capture.stop()
    dynamodb, _, _ = snapshot._backends()
    for table in dynamodb.tables.values():
        table.items.clear()
    with capture.serialized():
        snapshot.restore(captured.parent)
    assert _moto_state() == expected
    assert Entity.get(keys.partition("note", 4242), 4242).z is not None
    assert entities.get("note", 4242) == dict(big, _rev=1)
    entities.put("note", dict(big, field0="edited"))
    assert entities.get("note", 4242)["field0"] == "edited"
