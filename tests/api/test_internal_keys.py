"""Internal keys never leave the service: Mautic's answers carry only the API's properties, so a
stored document's bookkeeping (`_rev`, the revision edits are conditional on, or any other key with
a leading underscore) must not reach a client. Walks the answers of every resource and the extras."""

import pytest

from tests.api.payloads import RESOURCES, create


def internal_keys(value, path="$"):
    """The paths of the keys with a leading underscore anywhere in a JSON value."""
    if isinstance(value, dict):
        found = [f"{path}.{key}" for key in value if str(key).startswith("_")]
        return found + [p for key, item in value.items() for p in internal_keys(item, f"{path}.{key}")]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in internal_keys(item, f"{path}[{i}]")]
    return []


@pytest.fixture(autouse=True)
def quick_retries(configure):
    configure(WEBHOOK_RETRY_DELAYS=(0, 0))


def test_no_answer_carries_an_internal_key(api, drain, receiver):
    hook = api.post(
        "/api/hooks/new", {"name": "R", "webhookUrl": receiver.url, "triggers": ["mautic.lead_post_save_new"]}
    ).json["hook"]
    answers = []
    for res in RESOURCES:
        entity = create(api, res)
        answers += [
            api.get(res.base),
            api.get(f"{res.base}/{entity['id']}"),
            api.patch(f"{res.base}/{entity['id']}/edit", {}),
            api.post(f"{res.base}/batch/new", [res.create]) if res.prefix != "contacts" else api.get(res.base),
        ]
    contact = api.post("/api/contacts/new", {"email": "walk@example.com"}).json["contact"]
    api.post("/api/notes/new", {"text": "n", "lead": contact["id"]})
    drain()
    paths = [
        f"/api/hooks/{hook['id']}/logs",
        f"/api/contacts/{contact['id']}/activity",
        f"/api/contacts/{contact['id']}/notes",
        f"/api/contacts/{contact['id']}/segments",
        f"/api/contacts/{contact['id']}/automations",
        f"/api/contacts/{contact['id']}/devices",
        f"/api/contacts/{contact['id']}/companies",
        "/api/contacts/list/fields",
        "/api/contacts/list/owners",
        "/api/notes",
        "/api/users",
        "/api/users/self",
        "/api/contacts/activity",
        "/api/contacts/list/segments",
        "/api/stats",
        "/api/stats/lead_event_log",
        "/api/automations/events",
    ]
    answers += [api.get(path) for path in paths]
    assert int(api.get(f"/api/hooks/{hook['id']}/logs").json["total"]) >= 1  # the log was written
    walked = [(a.status_code, internal_keys(a.json)) for a in answers if a.json is not None]
    assert len(walked) == len(answers)
    assert [keys for _, keys in walked if keys] == []
    assert api.delete(f"/api/contacts/{contact['id']}/delete").json["contact"].get("_rev") is None


def test_the_serializer_drops_internal_keys_everywhere():
    from chalicelib.api.routing import public

    assert public({"a": [{"_rev": 3, "b": {"_x": 1, "c": 2}}], "_y": 0}) == {"a": [{"b": {"c": 2}}]}


def test_an_answer_drops_internal_keys_and_keeps_values_that_look_like_them():
    import json

    from chalicelib.api.routing import render

    assert json.loads(render(200, {"tags": ["_vip"], "a": [{"_rev": 1, "b": '"_x'}]}).body) == {
        "tags": ["_vip"],
        "a": [{"b": '"_x'}],
    }
    assert json.loads(render(200, {"tags": ["_vip"], "n": (1, 2)}).body) == {"tags": ["_vip"], "n": [1, 2]}
