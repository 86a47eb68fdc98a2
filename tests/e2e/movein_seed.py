"""A Mautic-speaking source filled with a few documents of each kind the mover copies."""

import base64
import json
import urllib.request

from chalicelib.movein.client import Api, Credentials

GUIDE = b"A guide to moving in.\n" * 50
REMOTE = "https://files.example.com/remote-guide.pdf"


class Client:
    """JSON calls with Basic credentials to one local stack."""

    def __init__(self, base, user, password):
        self.base, self.user, self.password = base.rstrip("/"), user, password
        self.auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.base}/api{path}", data=data, method=method)
        request.add_header("Authorization", self.auth)
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def ok(self, method, path, body=None):
        status, answer = self.call(method, path, body)
        assert 200 <= status < 300, (method, path, status, answer)
        return answer

    def new(self, path, body):
        answer = self.ok("POST", f"{path}/new", body)
        return next(v for v in answer.values() if isinstance(v, dict))["id"]


TOPICS = {"list": [{"label": "Shoes", "value": "shoes"}, {"label": "Other", "value": "other"}]}
CONDITIONS = {"any": 0, "expr": "in", "values": ["other"]}  # "Which?" shows when Topic is Other


def seed(c):
    """Every kind, with references between them; the ids by name."""
    ids = {}
    c.new("/fields/contact", {"label": "Colour", "alias": "colour", "type": "text"})
    c.new("/fields/company", {"label": "Tier", "alias": "tier", "type": "text"})
    ids["cat"] = c.new("/categories", {"title": "News", "alias": "news", "bundle": "global"})
    ids["stage"] = c.new("/stages", {"name": "Lead", "weight": 10, "category": ids["cat"]})
    ids["group"] = c.new("/points/groups", {"name": "Product"})
    ids["role"] = c.new("/roles", {"name": "Sales", "rawPermissions": {"lead:leads": ["full"]}})
    secret = {"password": "sam-secret-1", "confirm": "sam-secret-1"}
    user = {"username": "sam", "firstName": "Sam", "lastName": "Seller", "email": "sam@example.com"}
    ids["sam"] = c.new("/users", dict(user, role=ids["role"], plainPassword=secret))
    ids["acme"] = c.new("/companies", {"companyname": "Acme", "tier": "gold"})
    people = [
        {"email": "ann@example.com", "firstname": "Ann", "colour": "red", "tags": ["vip", "new"], "points": 12},
        {"email": "bob@example.com", "firstname": "Bob", "colour": "blue", "stage": ids["stage"], "owner": ids["sam"]},
        {
            "email": "cy@example.com",
            "colour": "red",
            "companies": [ids["acme"]],
            "doNotContact": [{"channel": "email", "reason": 3, "comments": "asked"}],
            "frequencyRules": {"email": {"frequency_number": 2, "frequency_time": "WEEK"}},
        },
    ]
    ids["contacts"] = [c.new("/contacts", p) for p in people]
    c.ok("POST", f"/contacts/{ids['contacts'][0]}/points/groups/{ids['group']}/plus/7")
    utm = {"utm_campaign": "spring", "utm_source": "news", "utm_medium": "email", "url": "https://x.example/a"}
    c.ok("POST", f"/contacts/{ids['contacts'][0]}/utm/add", utm)
    ids["vip"] = c.new("/segments", {"name": "VIP", "alias": "vip"})
    c.ok("POST", f"/segments/{ids['vip']}/contacts/add", {"ids": ids["contacts"][:2]})
    red = [
        {
            "glue": "and",
            "field": "colour",
            "object": "lead",
            "type": "text",
            "operator": "=",
            "properties": {"filter": "red"},
        }
    ]
    ids["red"] = c.new("/segments", {"name": "Red", "alias": "red", "filters": red})
    ids["vip_red"] = c.new("/segments", {"name": "Red VIPs", "alias": "vip-red", "filters": red})
    upload = Api(c.base, Credentials(c.user, c.password)).upload("/files/media/new", "guide.txt", GUIDE)
    ids["guide"] = c.new(
        "/assets", {"title": "Guide", "storageLocation": "local", "file": upload["file"]["name"], "isPublished": True}
    )
    ids["remote"] = c.new(
        "/assets",
        {"title": "Remote", "storageLocation": "remote", "file": REMOTE, "category": ids["cat"], "isPublished": True},
    )
    ids["welcome"] = c.new(
        "/emails",
        {
            "name": "Welcome",
            "subject": "Hi",
            "customHtml": "<p>Hi</p>",
            "isPublished": True,
            "category": ids["cat"],
            "assetAttachments": [ids["guide"]],
        },
    )
    ids["welcome_fr"] = c.new(
        "/emails",
        {
            "name": "Bienvenue",
            "subject": "Salut",
            "customHtml": "<p>Salut</p>",
            "language": "fr",
            "translationParent": ids["welcome"],
        },
    )
    ids["welcome_b"] = c.new(
        "/emails",
        {"name": "Welcome B", "subject": "Hello", "customHtml": "<p>Hello</p>", "variantParent": ids["welcome"]},
    )
    ids["news"] = c.new(
        "/emails",
        {
            "name": "Newsletter",
            "subject": "News",
            "customHtml": "<p>News</p>",
            "emailType": "list",
            "lists": [ids["red"]],
            "isPublished": True,
        },
    )
    ids["form"] = c.new(
        "/forms",
        {
            "name": "Signup",
            "formType": "standalone",
            "fields": [
                {"label": "Email", "alias": "email", "type": "email", "leadField": "email"},
                {"label": "Topic", "alias": "topic", "type": "select", "properties": {"list": TOPICS}},
                {"label": "Which?", "alias": "which", "type": "text"},
                {"label": "Send", "alias": "send", "type": "button"},
            ],
            "actions": [
                {"name": "Welcome", "type": "email.send.lead", "properties": {"email": ids["welcome"]}},
                {
                    "name": "VIP",
                    "type": "lead.changelist",
                    "properties": {"addToLists": [ids["vip"]], "removeFromLists": []},
                },
            ],
        },
    )
    ids["landing"] = c.new(
        "/pages", {"title": "Landing", "alias": "landing", "customHtml": "<html><body>Hi</body></html>"}
    )
    fields = {f["alias"]: f["id"] for f in c.ok("GET", f"/forms/{ids['form']}")["form"]["fields"]}
    shown_for_other = {"id": fields["which"], "parent": fields["topic"], "conditions": CONDITIONS}
    c.ok("PATCH", f"/forms/{ids['form']}/edit", {"fields": [shown_for_other]})
    ids["landing_fr"] = c.new(
        "/pages",
        {
            "title": "Accueil",
            "alias": "accueil",
            "language": "fr",
            "customHtml": "<html>Salut</html>",
            "translationParent": ids["landing"],
        },
    )
    c.ok("PATCH", f"/emails/{ids['news']}/edit", {"unsubscribeForm": ids["form"], "preferenceCenter": ids["landing"]})
    events = [
        {
            "id": "new1",
            "name": "Send",
            "type": "email.send",
            "eventType": "action",
            "order": 1,
            "properties": {"email": ids["welcome"]},
            "triggerMode": "immediate",
        },
        {"id": "new2", "name": "Opened?", "type": "email.open", "eventType": "decision", "order": 2, "parent": "new1"},
        {
            "id": "new3",
            "name": "VIP",
            "type": "lead.changelist",
            "eventType": "action",
            "order": 3,
            "parent": "new2",
            "decisionPath": "yes",
            "properties": {"addToLists": [ids["vip"]], "removeFromLists": []},
            "triggerMode": "immediate",
        },
        {
            "id": "new4",
            "name": "Later",
            "type": "lead.changetags",
            "eventType": "action",
            "order": 4,
            "parent": "new1",
            "properties": {"add_tags": ["later"]},
            "triggerMode": "interval",
            "triggerInterval": 3,
            "triggerIntervalUnit": "d",
        },
    ]
    ids["onboard"] = c.new(
        "/campaigns", {"name": "Onboard", "lists": [ids["red"]], "events": events, "isPublished": True}
    )
    ids["note"] = c.new("/notes", {"lead": ids["contacts"][0], "text": "Met at the fair", "type": "general"})
    ids["pointaction"] = c.new(
        "/points", {"name": "Signed up", "type": "form.submit", "delta": 5, "properties": {"forms": [ids["form"]]}}
    )
    trigger_events = [{"name": "Welcome", "type": "email.send", "properties": {"email": ids["welcome"]}}]
    ids["trigger"] = c.new(
        "/points/triggers", {"name": "Warm", "points": 10, "events": trigger_events, "isPublished": True}
    )
    ids["sms"] = c.new(
        "/smses", {"name": "Hello", "message": "Hi", "smsType": "list", "lists": [ids["red"]], "isPublished": True}
    )
    ids["banner"] = c.new("/dynamiccontents", {"name": "Banner", "content": "<b>Hi</b>", "isCampaignBased": True})
    ids["popup"] = c.new("/focus", {"name": "Popup", "type": "form", "style": "modal", "form": ids["form"]})
    channels = [{"channel": "email", "channelId": ids["welcome"], "isEnabled": True}]
    ids["message"] = c.new("/messages", {"name": "Hello everywhere", "channels": channels})
    report = {"name": "Weekly contacts", "source": "leads", "columns": ["l.email"], "isScheduled": False}
    ids["report"] = c.new("/reports", report)
    hook = {"name": "CRM", "webhookUrl": "http://127.0.0.1:9/hook", "triggers": ["mautic.lead_post_save_new"]}
    ids["hook"] = c.new("/hooks", dict(hook, isPublished=True))
    in_vip = {"glue": "and", "field": "leadlist", "object": "lead", "type": "leadlist", "operator": "in"}
    later = c.new("/segments", {"name": "Later", "alias": "later"})  # named by a segment created before it
    c.ok("PATCH", f"/segments/{ids['vip_red']}/edit", {"filters": red + [dict(in_vip, properties={"filter": [later]})]})
    ids["later"] = later
    return ids
