"""End to end: an automation on the local stack over real HTTP. A contact joining the source
segment enters in the request (its first action already applied); the devserver's worker threads
then run the outside action (a webhook to a receiver on 127.0.0.1) and what follows it."""

from tests.e2e.test_local_stack import Stack, _call
from tests.e2e.test_webhooks_e2e import _until


def test_segment_entry_runs_actions_and_the_worker_sends_the_webhook(tmp_path, receiver):
    stack = Stack(tmp_path / "data")
    try:
        conn = stack.connection()
        status, segment, _ = _call(
            conn,
            "POST",
            "/api/segments/new",
            {
                "name": "Pragueans",
                "filters": [
                    {
                        "glue": "and",
                        "field": "city",
                        "object": "lead",
                        "type": "text",
                        "operator": "=",
                        "properties": {"filter": "Prague"},
                    }
                ],
            },
        )
        assert status == 201, segment
        status, automation, _ = _call(
            conn,
            "POST",
            "/api/automations/new",
            {
                "name": "Welcome",
                "lists": [segment["list"]["id"]],
                "events": [
                    {
                        "id": "new1",
                        "name": "Tag",
                        "type": "lead.changetags",
                        "eventType": "action",
                        "properties": {"add_tags": ["welcomed"]},
                    },
                    {
                        "id": "new2",
                        "name": "Notify",
                        "type": "campaign.sendwebhook",
                        "eventType": "action",
                        "parent": "new1",
                        "properties": {
                            "url": receiver.url,
                            "method": "post",
                            "additional_data": {"email": "{contactfield=email}"},
                        },
                    },
                    {
                        "id": "new3",
                        "name": "Done",
                        "type": "lead.changepoints",
                        "eventType": "action",
                        "parent": "new2",
                        "properties": {"points": 7},
                    },
                ],
            },
        )
        assert status == 201, automation
        status, created, _ = _call(conn, "POST", "/api/contacts/new", {"email": "ann@example.com", "city": "Prague"})
        contact = created["contact"]
        assert [t["tag"] for t in contact["tags"]] == ["welcomed"] and contact["points"] == 0
        (request,) = receiver.wait(1, timeout=15)
        assert request.body == b"email=ann%40example.com"
        after = _until(
            lambda: (lambda c: c if c["points"] == 7 else None)(
                _call(conn, "GET", f"/api/contacts/{contact['id']}")[1]["contact"]
            )
        )
        assert after["points"] == 7
        status, members, _ = _call(conn, "GET", f"/api/automations/{automation['automation']['id']}/contacts")
        assert int(members["total"]) == 1 and members["contacts"][0]["lead_id"] == str(contact["id"])
    finally:
        stack.stop()
