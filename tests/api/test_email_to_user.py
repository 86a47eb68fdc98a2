"""Issue 41: the point trigger event `email.send_to_user` (Mautic's SendEmailToUser): the email about the
contact to its owner, named users and addresses (contact field tokens replaced), cc and bcc on the
first message, through the same mail transport (moto's SES outbox)."""

from tests.api.payloads import assert_error
from tests.api.test_email_send import make_email, sent_messages
from tests.api.test_permissions import _as


def _trigger(api, properties, points=10):
    event = {"type": "email.send_to_user", "name": "Tell the team", "properties": properties}
    r = api.post("/api/points/triggers/new", {"name": "Hot lead", "points": points, "events": [event]})
    assert r.status_code == 201, r.json
    return r.json["trigger"]


def _recipients(message):
    return sorted(a.addr_spec for name in ("To", "Cc") for a in (message[name].addresses if message[name] else ()))


def test_the_owner_users_and_addresses_are_mailed_about_the_contact(api, drain):
    owner = _as(api, "owner", {"lead:leads": ["viewown"]})
    colleague = _as(api, "colleague", {"lead:leads": ["viewown"]})
    mail = make_email(api, subject="Hot: {contactfield=firstname}", customHtml="<p>{contactfield=firstname} is hot</p>")
    _trigger(
        api,
        {
            "useremail": {"email": mail["id"]},
            "user_id": [colleague.user_id],
            "to_owner": True,
            "to": "boss@example.com, {contactfield=email}, not an address",
            "cc": "cc@example.com",
            "bcc": "{contactfield=firstname|audit@example.com}",
        },
    )
    ann = api.post("/api/contacts/new", {"email": "ann@example.com", "firstname": "Ann", "owner": owner.user_id}).json[
        "contact"
    ]
    api.post(f"/api/contacts/{ann['id']}/points/plus/10")
    drain()
    sent = sent_messages()
    assert [m["To"].addresses[0].addr_spec for m in sent] == [
        "boss@example.com",
        "ann@example.com",  # the contact's email field token
        "colleague@example.com",
        "owner@example.com",
    ]
    assert all(m["Subject"] == "Hot: Ann" and "Ann is hot" in m.get_body(("html",)).get_content() for m in sent)
    assert _recipients(sent[0]) == ["boss@example.com", "cc@example.com"] and sent[1]["Cc"] is None
    assert "X-Mautic-Tracking" not in sent[0]  # not a tracked send to the contact
    api.post(f"/api/contacts/{ann['id']}/points/minus/10")
    api.post(f"/api/contacts/{ann['id']}/points/plus/10")
    drain()
    assert len(sent_messages()) == 4  # a trigger event happens once per contact


def test_an_unpublished_email_sends_nothing_and_a_missing_one_is_refused(api, drain):
    assert_error(
        api.post(
            "/api/points/triggers/new",
            {
                "name": "Bad",
                "points": 5,
                "events": [{"type": "email.send_to_user", "name": "x", "properties": {"to_owner": True}}],
            },
        ),
        400,
        field="events[0][properties][useremail][email]",
    )
    mail = make_email(api, isPublished=False)
    _trigger(api, {"useremail": {"email": mail["id"]}, "to": "boss@example.com"})
    ann = api.post("/api/contacts/new", {"email": "ann@example.com"}).json["contact"]
    api.post(f"/api/contacts/{ann['id']}/points/plus/10")
    drain()
    assert sent_messages() == []


def test_a_limited_user_cannot_mail_out_an_email_she_may_not_view(api, drain):
    """The event would send the email's content to addresses she names: she must be able to view it."""
    mallory = _as(api, "mallory", {"point:triggers": ["full"], "email:emails": ["viewown", "editown", "create"]})
    secret = make_email(api, name="Secret offer")
    mine = make_email(mallory, name="Mine")
    body = lambda email: {  # noqa: E731
        "name": "Leak",
        "points": 1,
        "events": [
            {
                "type": "email.send_to_user",
                "name": "x",
                "properties": {"useremail": {"email": email}, "to": "drop@evil.example"},
            }
        ],
    }
    refused = mallory.post("/api/points/triggers/new", body(secret["id"]))
    assert refused.status_code == 403 and "Secret offer" not in str(refused.json)
    assert api.get("/api/points/triggers").json["total"] == 0
    assert mallory.post("/api/points/triggers/new", body(mine["id"])).status_code == 201
    assert_error(
        mallory.post("/api/points/triggers/new", body(99999)), 400, field="events[0][properties][useremail][email]"
    )
