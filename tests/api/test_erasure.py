"""Issue 32, erasure: deleting a contact leaves nothing that identifies the person, through any API nor
in the tables and the bucket, once the `erasure` worker has run; the counts that are kept still add up."""

import json
import re
from html import unescape
from pathlib import Path

import boto3
import pytest

from chalicelib import config
from tests import motostate
from tests.api.test_automations import new_automation, tag
from tests.api.test_contact_actions import IPHONE
from tests.api.test_email_send import hook_receiver, make_email, received, sent_messages  # noqa: F401 - a fixture
from tests.api.test_forms_submit import make_form
from tests.api.test_forms_submit import post as submit_form
from tests.api.test_pages_public import fetch, make_page
from tests.api.test_permissions import _as
from tests.api.test_segments import new_segment
from tests.conftest import visitor_cookie

EMAIL = "erin.erased@example.com"
ADDRESS = "198.51.100.77"
NAME = "Zelphine"


def _public(api, path):
    return api.http.request("GET", path, headers={"Accept": "*/*", "User-Agent": IPHONE}, body=b"")


def _table_items():
    """Every item of every table, as JSON text (read as a client would: Scan), a compressed document
    as its text (else its words would be hidden and the search would pass for nothing)."""
    client = boto3.client("dynamodb", region_name=config.active().AWS_REGION)
    dumped = []
    for name in client.list_tables()["TableNames"]:
        for page in client.get_paginator("scan").paginate(TableName=name):
            dumped += [json.dumps(motostate.readable(item)) for item in page["Items"]]
    return dumped


def _bucket_text():
    bucket = boto3.resource("s3", region_name=config.active().AWS_REGION).Bucket(config.active().FILES_BUCKET)
    return [obj.key + obj.get()["Body"].read().decode("latin-1") for obj in bucket.objects.all()]


def _outbox_text():
    """The local outbox's copies (docs/email.md), as text."""
    folder = Path(config.active().OUTBOX_DIR)
    return [path.read_bytes().decode("latin-1") for path in folder.iterdir()] if folder.is_dir() else []


def _sent_to(text):
    """Whether a copy was sent to the contact (its `To` header; a `Reply-To` may name it too)."""
    return re.search(rf"^To: .*{re.escape(EMAIL)}", text, re.MULTILINE | re.IGNORECASE) is not None


def _everything(api, source_ip):
    """A contact with every kind of derived data; returns (contact, email, page, form, tracking hash)."""
    segment = new_segment(api, name="Everyone", filters=[])
    automation = new_automation(
        api, [tag("new1", "now"), tag("new2", "later", parent="new1", triggerMode="interval", triggerInterval=1)]
    )
    copy = {"to": "sales@example.com", "subject": "Lead", "message": "<p>New lead</p>", "copy_lead": True}
    form = make_form(api, actions=[{"name": "Mail", "type": "form.email", "properties": copy}])
    page = make_page(api)
    mail = make_email(api)
    source_ip(ADDRESS)
    submitted = submit_form(api, form["id"], {"email": EMAIL, "first_name": NAME}, query="&x=1")
    assert submitted.status_code in (200, 302), submitted.body
    (contact,) = api.get(f"/api/contacts?search=email:{EMAIL}").json["contacts"].values()
    cid = contact["id"]
    cookie = {"Cookie": visitor_cookie(cid), "User-Agent": IPHONE}
    assert fetch(api, f"/{page['alias']}?utm_source=mail&secret=erin", cookie).status_code == 200
    assert api.post(f"/api/emails/{mail['id']}/contact/{cid}/send").json == {"success": True}
    tracking = sent_messages()[-1]["X-Mautic-Tracking"]
    html = sent_messages()[-1].get_body(("html",)).get_content()
    assert _public(api, f"/email/{tracking}.gif").status_code == 200
    link = unescape(re.search(r'href="https?://[^/]+(/r/[^"]+)"', html).group(1))
    assert _public(api, link).status_code == 302
    assert api.post(f"/api/contacts/{cid}/points/plus/7").status_code == 200
    assert api.post("/api/notes/new", {"text": f"{NAME} called", "lead": cid}).status_code == 201
    assert api.post(f"/api/contacts/{cid}/utm/add", {"utm_campaign": "spring", "useragent": IPHONE}).status_code == 200
    assert api.post(f"/api/contacts/{cid}/dnc/sms/add", {"reason": 1}).status_code == 200
    assert api.post(f"/api/segments/{segment['id']}/contact/{cid}/add").status_code == 200
    assert api.post(f"/api/automations/{automation['id']}/contact/{cid}/add").status_code == 200
    stage = api.post("/api/stages/new", {"name": "Lead", "weight": 1}).json["stage"]
    assert api.post(f"/api/stages/{stage['id']}/contact/{cid}/add").status_code == 200
    return api.get(f"/api/contacts/{cid}").json["contact"], mail, page, form, tracking


LINKS = ("lead", "contactId", "leadId", "lead_id", "contact")


def _names_contact(value, contact_id):
    """Whether a stored document links the contact: a link key naming its id, anywhere inside."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in LINKS and (inner == contact_id or (isinstance(inner, dict) and inner.get("id") == contact_id)):
                return True
            if _names_contact(inner, contact_id):
                return True
    if isinstance(value, list):
        return any(_names_contact(inner, contact_id) for inner in value)
    return False


def _leftovers(contact, tracking):
    """The stored items that still identify the contact: its id as a link or a partition, its address,
    name, IP address or tracking hash (the per-address rate-limit windows excepted: they expire by TTL
    within two hours and link the address to no one)."""
    cid = contact["id"]
    needles = [EMAIL, ADDRESS, tracking, NAME, EMAIL.split("@")[0]]
    partitions = {f"timeline#{cid}", f"notes#{cid}", "erasure"}
    found = []
    for text in _table_items():
        item = json.loads(text)
        key = next(iter(v for k, v in item.items() if k in ("kind", "name", "key")), {}).get("S", "")
        if key.startswith(("count#submit:", "count#hit:", "rate#", "count#visitor")):
            continue
        doc = json.loads(item["doc"]["S"]) if "doc" in item else {}
        if key in partitions or _names_contact(doc, cid) or any(n.lower() in text.lower() for n in needles):
            found.append(text)
    return found


def _api_text(api, contact, mail, page, form):
    """What every API that could show the contact answers, as one text."""
    paths = [
        "/api/contacts/activity?limit=100",
        "/api/contacts?limit=100",
        f"/api/contacts?search={EMAIL}",
        "/api/notes",
        "/api/devices",
        f"/api/forms/{form['id']}/submissions",
        f"/api/emails/{mail['id']}",
        f"/api/pages/{page['id']}",
        "/api/data/recent.activity",
    ] + [f"/api/stats/{t}?limit=100" for t in STATS]
    for source in ("leads", "email.stats", "form.submissions", "page.hits", "lead.pointlog", "campaign_lead.event_log"):
        made = api.post("/api/reports/new", {"name": f"R {source}", "source": source})
        assert made.status_code == 201, made.json
        paths.append(f"/api/reports/{made.json['report']['id']}")
    answers = {path: api.get(path) for path in paths}
    assert all(r.status_code == 200 for r in answers.values()), {
        p: r.json for p, r in answers.items() if r.status_code != 200
    }
    return json.dumps([r.json for r in answers.values()])  # the answers, not the paths asked


STATS = (
    "form_submissions",
    "email_stats",
    "page_hits",
    "lead_points_change_log",
    "campaign_lead_event_log",
    "lead_event_log",
)


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_deleted_contact_leaves_nothing_that_identifies_it(api, drain, source_ip):
    contact, mail, page, form, tracking = _everything(api, source_ip)
    cid = contact["id"]
    drain()
    before = _api_text(api, contact, mail, page, form)
    assert EMAIL in before and ADDRESS in before and f'"lead_id": "{cid}"' in before  # the check sees them
    shown = api.get(f"/api/contacts/{cid}").json["contact"]
    assert shown["stage"] and shown["doNotContact"] and shown["utmtags"] and shown["ipAddresses"]
    assert api.get(f"/api/contacts/{cid}/devices").json["devices"] and int(api.get("/api/notes").json["total"]) == 1
    assert int(api.get(f"/api/contacts/{cid}/segments").json["total"]) == 1
    counts = (
        api.get(f"/api/emails/{mail['id']}").json["email"],
        api.get(f"/api/pages/{page['id']}").json["page"],
    )
    assert counts[0]["sentCount"] == 1 and counts[0]["readCount"] == 1 and counts[1]["hits"] == 1
    assert [text for text in _outbox_text() if _sent_to(text)]

    deleted = api.delete(f"/api/contacts/{cid}/delete")
    assert deleted.status_code == 200 and deleted.json["contact"]["fields"]["all"]["email"] == EMAIL
    assert api.get(f"/api/contacts/{cid}").status_code == 404
    drain()

    assert api.get(f"/api/contacts/{cid}/activity").status_code == 404
    after = _api_text(api, contact, mail, page, form)
    for needle in (EMAIL, ADDRESS, tracking, NAME, "secret=erin", f'"lead_id": "{cid}"'):
        assert needle not in after, needle
    assert _leftovers(contact, tracking) == []
    assert not [text for text in _bucket_text() if EMAIL in text or ADDRESS in text]
    # the copies sent to it go; a form's notification to a user (quoting the submission) is a message
    # sent to someone else, outside the service like the message itself (docs/privacy.md)
    assert not [text for text in _outbox_text() if _sent_to(text)]
    email, hit_page = (
        api.get(f"/api/emails/{mail['id']}").json["email"],
        api.get(f"/api/pages/{page['id']}").json["page"],
    )
    assert (email["sentCount"], email["readCount"], hit_page["hits"]) == (1, 1, 1)  # the counts kept add up
    (submission,) = api.get(f"/api/forms/{form['id']}/submissions").json["submissions"]
    assert submission["lead"] is None and submission["ipAddress"] == {"ip": None}


def test_a_later_contact_with_the_erased_address_stays_unsubscribed(api, drain, source_ip):
    contact, *_ = _everything(api, source_ip)
    api.delete(f"/api/contacts/{contact['id']}/delete")
    drain()
    again = api.post("/api/contacts/new", {"email": EMAIL.upper()}).json["contact"]
    assert [(d["channel"], d["reason"]) for d in again["doNotContact"]] == [("sms", 1)]
    assert api.delete(f"/api/contacts/{again['id']}/delete").status_code == 200
    imported = api.post("/api/contacts/batch/new", [{"email": "other@example.com"}, {"email": EMAIL}])
    assert imported.status_code == 201, imported.json
    dnc = {c["fields"]["all"]["email"]: [d["channel"] for d in c["doNotContact"]] for c in imported.json["contacts"]}
    assert dnc == {"other@example.com": [], EMAIL: ["sms"]}


def test_batch_and_automation_deletes_erase_too(api, drain):
    ids = [api.post("/api/contacts/new", {"email": f"p{n}@example.com"}).json["contact"]["id"] for n in range(2)]
    for cid in ids:
        api.post("/api/notes/new", {"text": "note", "lead": cid})
    assert api.delete(f"/api/contacts/batch/delete?ids={ids[0]},{ids[1]}").status_code == 200
    automation = new_automation(
        api,
        [
            {
                "id": "new1",
                "name": "bye",
                "type": "lead.deletecontact",
                "eventType": "action",
                "properties": {},
                "parent": None,
                "decisionPath": None,
            }
        ],
    )
    third = api.post("/api/contacts/new", {"email": "p3@example.com"}).json["contact"]["id"]
    api.post("/api/notes/new", {"text": "note", "lead": third})
    api.post(f"/api/automations/{automation['id']}/contact/{third}/add")
    drain()
    assert api.get(f"/api/contacts/{third}").status_code == 404
    assert int(api.get("/api/notes").json["total"]) == 0
    from chalicelib.store import port as entities

    assert [list(entities.iterate(f"timeline#{cid}")) for cid in ids + [third]] == [[], [], []]
    assert list(entities.iterate("erasure")) == []


def test_lead_post_delete_is_sent_once_the_data_is_gone(api, drain, hook_receiver):  # noqa: F811 - the fixture
    from chalicelib.store import port as entities

    receiver = hook_receiver(["mautic.lead_post_delete"])
    cid = api.post("/api/contacts/new", {"email": EMAIL, "firstname": "Erin"}).json["contact"]["id"]
    api.delete(f"/api/contacts/{cid}/delete")
    assert list(entities.iterate("outbox")) == []  # not announced by the delete itself
    [job] = list(entities.iterate("erasure"))
    from chalicelib.domain.contacts import erasure

    erasure.run(job["id"])
    assert list(entities.iterate(f"timeline#{cid}")) == [] and len(list(entities.iterate("outbox"))) == 1
    drain()
    (event,) = received(receiver, "mautic.lead_post_delete")
    assert event["id"] == cid and event["contact"]["fields"]["all"]["email"] == EMAIL and event["contact"]["id"] is None


def test_a_user_who_may_not_delete_the_contact_cannot_erase_it(api, drain):
    from chalicelib.store import port as entities

    owner = _as(api, "owner", {"lead:leads": ["viewown", "editown", "create", "deleteown"]})
    viewer = _as(api, "viewer", {"lead:leads": ["viewother", "editother", "viewown", "create"]})
    stranger = _as(api, "stranger", {"lead:leads": ["viewown", "editown", "create", "deleteown"]})
    contact = api.post("/api/contacts/new", {"email": EMAIL, "owner": owner.user_id}).json["contact"]
    api.post("/api/notes/new", {"text": f"{NAME} called", "lead": contact["id"]})
    for caller in (viewer, stranger):
        refused = caller.delete(f"/api/contacts/{contact['id']}/delete")
        assert refused.status_code == 403 and EMAIL not in json.dumps(refused.json)
        batch = caller.delete(f"/api/contacts/batch/delete?ids={contact['id']}")
        assert EMAIL not in json.dumps(batch.json) and batch.json.get("contacts") in (None, [], {})
    drain()
    assert list(entities.iterate("erasure")) == []
    assert api.get(f"/api/contacts/{contact['id']}").json["contact"]["fields"]["all"]["email"] == EMAIL
    assert int(api.get(f"/api/contacts/{contact['id']}/notes").json["total"]) == 1
    assert owner.delete(f"/api/contacts/{contact['id']}/delete").status_code == 200  # its owner may
    listed = owner.get("/api/contacts")  # the pending job is in no one's list (nor in the owner's feed)
    assert int(listed.json["total"]) == 0 and EMAIL not in json.dumps(listed.json)
    drain()
    assert (
        api.get(f"/api/contacts/{contact['id']}").status_code == 404 and int(api.get("/api/notes").json["total"]) == 0
    )


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_erasure_costs_a_fixed_part_and_a_call_or_few_per_erased_item(api, drain, source_ip):
    """docs/privacy.md: 25 calls (job read, eleven steps recorded, eleven Queries, versions, job removed),
    then 1 per event, 3 per send record, 3 per submission, 2 per note, 1 per segment joined; the delete itself 1 GetItem
    more than before (an earlier suppression of the address, read when it had do-not-contact entries)."""
    from tests.bench.conftest import dynamodb_calls

    contact, *_ = _everything(api, source_ip)
    drain()
    events = api.get(f"/api/contacts/{contact['id']}/activity?limit=100").json["total"]
    with dynamodb_calls() as deleting:
        api.delete(f"/api/contacts/{contact['id']}/delete")
    with dynamodb_calls() as erasing:
        drain()
    assert deleting["GetItem"] == 3 and deleting["TransactWriteItems"] == 1  # versions: a GetItem now
    sends, submissions, notes, joins = 1, 1, 1, 1
    expected = 25 + events + 3 * sends + 3 * submissions + 2 * notes + joins
    assert sum(erasing.values()) == expected, (events, erasing)
