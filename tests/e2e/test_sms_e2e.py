"""Text messages' frequency rules end to end on the local stack over real HTTP: a contact allowed one
text a DAY gets the first in DATA_DIR/outbox; the second send is answered "Scheduled", nothing more
lands in the outbox, and the contact's activity shows the queued message."""

import json

import pytest

from tests.e2e.test_local_stack import _call, own_outbox_stack


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    running = own_outbox_stack(tmp_path_factory.mktemp("sms"))
    yield running
    running.stop()


def _texts(stack):
    folder = stack.data_dir / "outbox"
    return [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))] if folder.exists() else []


def test_a_capped_contact_gets_one_text_and_the_next_is_scheduled(stack):
    conn = stack.connection()
    rules = {"sms": {"frequency_number": 1, "frequency_time": "DAY"}}
    _, contact, _ = _call(
        conn, "POST", "/api/contacts/new", {"firstname": "Ann", "mobile": "+14155550101", "frequencyRules": rules}
    )
    contact_id = contact["contact"]["id"]
    _, sms, _ = _call(conn, "POST", "/api/smses/new", {"name": "Ping", "message": "Ping {contactfield=firstname}"})
    path = f"/api/smses/{sms['sms']['id']}/contact/{contact_id}/send"
    status, first, _ = _call(conn, "GET", path)
    assert status == 200 and first["success"] is True
    status, second, _ = _call(conn, "POST", path)
    assert status == 200 and second == {
        "success": False,
        "status": "Scheduled",
        "result": {"sent": False, "status": "Scheduled"},
        "errors": [{"message": "Scheduled"}],
    }
    assert [(text["to"], text["message"]) for text in _texts(stack)] == [("+14155550101", "Ping Ann")]
    _, activity, _ = _call(conn, "GET", f"/api/contacts/{contact_id}/activity")
    (queued,) = [e for e in activity["events"] if e["event"] == "message.queue"]
    assert queued["eventLabel"] == f"Message Queued for channel - sms {sms['sms']['id']}"
