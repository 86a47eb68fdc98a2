"""`move-in` from one local stack (the source, speaking Mautic's API) into another: every kind copied
with its references remapped, nothing sent but the new users' invitations, a rerun copies nothing, an
interrupted run finishes."""

import email
import json
import os
import signal
import subprocess
import sys
import time
from email import policy

import pytest

from chalicelib.movein import guard, mover
from chalicelib.movein.client import Api, Credentials
from chalicelib.movein.run import Run
from tests.e2e.movein_seed import CONDITIONS, GUIDE, REMOTE, Client, seed
from tests.e2e.test_local_stack import PASSWORD, ROOT, Stack, own_outbox_stack


@pytest.fixture(scope="module")
def stacks(tmp_path_factory):
    running = [own_outbox_stack(tmp_path_factory.mktemp(name)) for name in ("source", "target")]
    yield running
    for stack in running:
        stack.stop()


def _base(stack):
    return f"http://127.0.0.1:{stack.port}"


def _client(stack):
    return Client(_base(stack), "admin", PASSWORD)


def _move(source, target, *extra, env=None):
    """The CLI from `source` to `target`; the target's credentials from `env` when given."""
    login = [] if env else ["--to-user", "admin", "--to-password", PASSWORD]
    done = subprocess.run(
        [sys.executable, "-m", "chalicelib.cli", "--json", "move-in", "--quiet", "--from", _base(source)]
        + ["--from-user", "admin", "--from-password", PASSWORD, "--to", _base(target), *login, *extra],
        cwd=ROOT,
        env=dict(os.environ, **(env or {})),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout)


def _mapping(target, kind):
    out, after = {}, 0
    while after is not None:
        page = _client(target).ok("GET", f"/movein/mappings/{kind}?after={after}")
        out.update({e["from"]: e["to"] for chunk in page["chunks"] for e in chunk["entries"]})
        after = page["next"]
    return out


def _ids(value):
    items = value if isinstance(value, list) else [value] if value else []
    return sorted(i["id"] if isinstance(i, dict) else int(i) for i in items)


def _one(client, path, key):
    return client.ok("GET", path)[key]


def _rows(answer, key):
    value = answer[key]
    return list(value.values()) if isinstance(value, dict) else value


def _outbox(stack):
    folder = stack.data_dir / "outbox"
    return sorted(folder.glob("*")) if folder.exists() else []


def _compare_contacts(src, dst, maps):
    for source_id, new_id in maps["contact"].items():
        a, b = _one(src, f"/contacts/{source_id}", "contact"), _one(dst, f"/contacts/{new_id}", "contact")
        values = {k: v for k, v in a["fields"]["all"].items() if k != "id"}
        assert values == {k: v for k, v in b["fields"]["all"].items() if k != "id"}
        assert sorted(t["tag"] for t in a["tags"]) == sorted(t["tag"] for t in b["tags"])
        assert (maps["stage"][a["stage"]["id"]] if a["stage"] else None) == (b["stage"] or {}).get("id")
        assert (maps["user"][a["owner"]["id"]] if a["owner"] else None) == (b["owner"] or {}).get("id")
        utm = [(u["utmCampaign"], u["utmSource"], u["utmMedium"], u["url"]) for u in a["utmtags"]]
        assert utm == [(u["utmCampaign"], u["utmSource"], u["utmMedium"], u["url"]) for u in b["utmtags"]]
        scores = [
            (maps["pointgroup"][g["group"]["id"]], g["score"])
            for g in _rows(src.ok("GET", f"/contacts/{source_id}/points/groups"), "groupScores")
        ]
        assert scores == [
            (g["group"]["id"], g["score"])
            for g in _rows(dst.ok("GET", f"/contacts/{new_id}/points/groups"), "groupScores")
        ]
        rules = [(r["channel"], r["frequencyNumber"], r["frequencyTime"]) for r in a["frequencyRules"]]
        assert rules == [(r["channel"], r["frequencyNumber"], r["frequencyTime"]) for r in b["frequencyRules"]]
        dnc = [(d["channel"], d["reason"], d["comments"]) for d in a["doNotContact"]]
        assert dnc == [(d["channel"], d["reason"], d["comments"]) for d in b["doNotContact"]]
        companies = [
            maps["company"][c["id"]] for c in _rows(src.ok("GET", f"/contacts/{source_id}/companies"), "companies")
        ]
        assert companies == [c["id"] for c in _rows(dst.ok("GET", f"/contacts/{new_id}/companies"), "companies")]


def _compare_content(src, dst, maps, ids):
    for name in ("welcome", "welcome_fr", "welcome_b", "news"):
        a = _one(src, f"/emails/{ids[name]}", "email")
        b = _one(dst, f"/emails/{maps['email'][ids[name]]}", "email")
        assert (a["name"], a["subject"], a["customHtml"], a["language"]) == (
            b["name"],
            b["subject"],
            b["customHtml"],
            b["language"],
        )
        for ref in ("translationParent", "variantParent"):
            assert [maps["email"][i] for i in _ids(a[ref])] == _ids(b[ref])
        assert [maps["segment"][i] for i in _ids(a["lists"])] == _ids(b["lists"])
        assert [maps["category"][i] for i in _ids(a["category"])] == _ids(b["category"])
        assert b["isPublished"] is (a["isPublished"] and a["emailType"] != "list")
    form = _one(dst, f"/forms/{maps['form'][ids['form']]}", "form")
    assert [f["alias"] for f in form["fields"]] == ["email", "topic", "which", "send"]
    fields = {f["alias"]: f for f in form["fields"]}
    assert int(fields["which"]["parent"]) == fields["topic"]["id"] and fields["which"]["conditions"] == CONDITIONS
    news = _one(dst, f"/emails/{maps['email'][ids['news']]}", "email")
    assert (_ids(news["unsubscribeForm"]), _ids(news["preferenceCenter"])) == (
        [form["id"]],
        [maps["page"][ids["landing"]]],
    )
    actions = {a["type"]: a["properties"] for a in form["actions"]}
    assert int(actions["email.send.lead"]["email"]) == maps["email"][ids["welcome"]]
    assert _ids(actions["lead.changelist"]["addToLists"]) == [maps["segment"][ids["vip"]]]
    page = _one(dst, f"/pages/{maps['page'][ids['landing_fr']]}", "page")
    assert _ids(page["translationParent"]) == [maps["page"][ids["landing"]]] and page["alias"] == "accueil"
    flow = _one(dst, f"/automations/{maps['automation'][ids['onboard']]}", "automation")
    assert flow["isPublished"] is False and _ids(flow["lists"]) == [maps["segment"][ids["red"]]]
    events = sorted(flow["events"], key=lambda e: e["order"])
    assert [e["type"] for e in events] == ["email.send", "email.open", "lead.changelist", "lead.changetags"]
    assert int(events[0]["properties"]["email"]) == maps["email"][ids["welcome"]]
    assert _ids(events[1]["parent"]) == [events[0]["id"]] and events[2]["decisionPath"] == "yes"


def _compare_assets(src, dst, maps, ids):
    reader = Api("http://127.0.0.1", Credentials("x", "y"))
    guide = _one(dst, f"/assets/{maps['asset'][ids['guide']]}", "asset")
    assert guide["storageLocation"] == "local" and reader.download(guide["downloadUrl"])[2] == GUIDE
    remote = _one(dst, f"/assets/{maps['asset'][ids['remote']]}", "asset")
    assert remote["storageLocation"] == "remote" and _ids(remote["category"]) == [maps["category"][ids["cat"]]]
    assert reader.download(remote["downloadUrl"])[:2] == (302, REMOTE)
    welcome = _one(dst, f"/emails/{maps['email'][ids['welcome']]}", "email")
    assert _ids(welcome["assetAttachments"]) == [guide["id"]]


def _compare_rest(dst, maps, ids):
    sam = _one(dst, f"/users/{maps['user'][ids['sam']]}", "user")
    assert (sam["username"], sam["email"], sam["role"]["id"]) == ("sam", "sam@example.com", maps["role"][ids["role"]])
    assert _one(dst, f"/roles/{maps['role'][ids['role']]}", "role")["rawPermissions"] == {"lead:leads": ["full"]}
    note = _one(dst, f"/notes/{maps['note'][ids['note']]}", "note")
    assert note["text"] == "Met at the fair" and _ids(note["lead"]) == [maps["contact"][ids["contacts"][0]]]
    action = _one(dst, f"/points/{maps['pointaction'][ids['pointaction']]}", "point")
    assert _ids(action["properties"]["forms"]) == [maps["form"][ids["form"]]]
    trigger = _one(dst, f"/points/triggers/{maps['pointtrigger'][ids['trigger']]}", "trigger")
    assert trigger["isPublished"] is False and trigger["triggerExistingLeads"] is False
    assert [int(e["properties"]["email"]) for e in _rows(trigger, "events")] == [maps["email"][ids["welcome"]]]
    sms = _one(dst, f"/smses/{maps['sms'][ids['sms']]}", "sms")
    assert sms["isPublished"] is False and (sms["smsType"], sms["message"]) == ("list", "Hi")
    popup = _one(dst, f"/focus/{maps['focus'][ids['popup']]}", "focus")
    assert _ids(popup["form"]) == [maps["form"][ids["form"]]]
    assert (
        _one(dst, f"/dynamiccontents/{maps['dynamiccontent'][ids['banner']]}", "dynamicContent")["content"]
        == "<b>Hi</b>"
    )
    message = _one(dst, f"/messages/{maps['message'][ids['message']]}", "message")
    assert [(c["channel"], int(c["channelId"])) for c in _rows(message, "channels") if c["isEnabled"]] == [
        ("email", maps["email"][ids["welcome"]])
    ]
    assert _one(dst, f"/reports/{maps['report'][ids['report']]}", "report")["columns"] == ["l.email"]
    hook = _one(dst, f"/hooks/{maps['webhook'][ids['hook']]}", "hook")
    assert hook["isPublished"] is False and hook["triggers"] == ["mautic.lead_post_save_new"]


def _compare_segments(src, dst, maps, ids):
    red = _one(dst, f"/segments/{maps['segment'][ids['red']]}", "list")
    assert [(f["field"], f["operator"], f["properties"]["filter"]) for f in red["filters"]] == [("colour", "=", "red")]
    vip = maps["segment"][ids["vip"]]
    members = _rows(dst.ok("GET", "/contacts?search=segment:vip&limit=50"), "contacts")
    assert sorted(c["id"] for c in members) == sorted(maps["contact"][i] for i in ids["contacts"][:2])
    assert _one(dst, f"/segments/{vip}", "list")["filters"] == []
    named = _one(dst, f"/segments/{maps['segment'][ids['vip_red']]}", "list")["filters"][1]["properties"]["filter"]
    assert _ids(named) == [maps["segment"][ids["later"]]]


def _log(client, automation, contact):
    answer = client.ok("GET", f"/campaigns/{automation}/events/contact/{contact}")
    return {
        e["name"]: [(g["dateTriggered"], g["isScheduled"], g["triggerDate"], g["metadata"]) for g in e["contactLog"]]
        for e in answer["events"]
    }


def _members(client, automation):
    return sorted(int(r["lead_id"]) for r in client.ok("GET", f"/campaigns/{automation}/contacts")["contacts"])


def _status(metadata):
    """An event log's outcome; None while it has none (claimed and running: no status yet)."""
    return metadata.get("status") if isinstance(metadata, dict) else None


def _settled(src, automation):
    """The source's members once their welcome email has run (the local stack's worker sends it)."""
    for _ in range(120):
        members = _members(src, automation)
        logs = [_log(src, automation, m)["Send"] for m in members]
        if len(members) == 2 and all(log and _status(log[0][3]) in ("ok", "failed") for log in logs):
            return members
        time.sleep(0.5)
    raise AssertionError(f"the source's automation did not run: {members}")


def _compare_journeys(src, dst, maps, ids, members):
    """Each member's log here as at the source: the welcome ran (not again), the later tag scheduled at
    its original time, the decision waiting."""
    copy = maps["automation"][ids["onboard"]]
    assert _members(dst, copy) == sorted(maps["contact"][m] for m in members)
    logs = []
    for member in members:
        theirs, ours = _log(src, ids["onboard"], member), _log(dst, copy, maps["contact"][member])
        assert ours == theirs
        logs.append(ours)
    ann, cy = logs  # Cy's email was refused (do not contact): nothing follows it
    assert ann["Send"][0][3]["status"] == "ok" and ann["Later"][0][1] is True
    assert ann["Later"][0][2] > ann["Send"][0][0] and ann["Opened?"] == [] and cy["Later"] == []


def test_every_kind_is_copied_remapped_without_sending_and_a_rerun_copies_nothing(stacks, tmp_path):
    source, target = stacks
    src, dst = _client(source), _client(target)
    ids = seed(src)
    members = _settled(src, ids["onboard"])
    dry = _move(source, target, "--dry-run")
    assert dry["dryRun"] and dry["kinds"]["contact"]["copied"] == 3 and dry["kinds"]["email"]["copied"] == 4
    assert dry["kinds"]["invitation"]["copied"] == 1  # sam (admin is matched by username)
    assert _mapping(target, "contact") == {} and dst.ok("GET", "/emails")["total"] in (0, "0")
    sent_before = set(_outbox(target))
    report = _move(source, target, "--report", str(tmp_path / "report.json"))
    assert json.loads((tmp_path / "report.json").read_text()) == report | {"seconds": report["seconds"]}
    kinds = report["kinds"]
    assert {k: kinds[k]["copied"] for k in ("contact", "segment", "email", "form", "page", "automation")} == {
        "contact": 3,
        "segment": 4,
        "email": 4,
        "form": 1,
        "page": 2,
        "automation": 1,
    }
    assert all(k["failed"] == 0 for k in kinds.values())
    maps = {
        kind: _mapping(target, kind)
        for kind in (
            "contact",
            "stage",
            "company",
            "segment",
            "email",
            "form",
            "page",
            "automation",
            "category",
            "asset",
            "note",
            "pointaction",
            "pointtrigger",
            "sms",
            "focus",
            "dynamiccontent",
            "webhook",
            "user",
            "role",
            "pointgroup",
            "message",
            "report",
        )
    }
    _compare_contacts(src, dst, maps)
    _compare_segments(src, dst, maps, ids)
    _compare_content(src, dst, maps, ids)
    _compare_assets(src, dst, maps, ids)
    _compare_rest(dst, maps, ids)
    _compare_journeys(src, dst, maps, ids, members)
    assert kinds["journey"]["copied"] == 2
    (invitation,) = set(_outbox(target)) - sent_before  # nothing sent for the copy but sam's invitation
    message = email.message_from_bytes(invitation.read_bytes(), policy=policy.default)
    assert (
        message["To"] == "Sam Seller <sam@example.com>"
        and message["Subject"] == "Your invitation: choose your password"
    )
    assert "/passwordresetconfirm?token=" in message.get_body(("plain",)).get_content()
    assert kinds["invitation"]["copied"] == 1 and _mapping(target, "invitation") == {
        ids["sam"]: maps["user"][ids["sam"]]
    }
    code, client = target.cli(
        "clients", "create", "--name", "mover", "--grant", "client_credentials", "--user", "admin"
    )
    assert code == 0, client
    oauth = {"MAUTIC_TO_CLIENT_ID": client["clientId"], "MAUTIC_TO_CLIENT_SECRET": client["clientSecret"]}
    again = _move(source, target, env=oauth)  # an OAuth2 client of the destination, from the environment
    assert all(k["copied"] == 0 and k["updated"] == 0 for name, k in again["kinds"].items() if name != "membership")
    assert set(_outbox(target)) - sent_before == {invitation}  # nobody invited twice
    assert dst.ok("GET", "/contacts")["total"] in (3, "3")
    # a delta run: what changed at the source since its copy is edited, nothing else
    src.ok("PATCH", f"/contacts/{ids['contacts'][1]}/edit", {"colour": "green", "points": 40})
    src.ok("PATCH", f"/emails/{ids['welcome_fr']}/edit", {"subject": "Bonjour"})
    src.ok("PATCH", f"/campaigns/{ids['onboard']}/edit", {"description": "Second version"})
    delta = _move(source, target, env=oauth)["kinds"]
    assert (delta["contact"]["updated"], delta["email"]["updated"], delta["contact"]["copied"]) == (1, 1, 0)
    # the automation edited as a whole (its events replaced, not added to), its journeys set again on them
    assert (delta["automation"]["updated"], delta["journey"]["updated"]) == (1, 2)
    assert len(_one(dst, f"/automations/{maps['automation'][ids['onboard']]}", "automation")["events"]) == 4
    _compare_journeys(src, dst, maps, ids, members)
    bob = _one(dst, f"/contacts/{maps['contact'][ids['contacts'][1]]}", "contact")["fields"]["all"]
    assert (bob["colour"], bob["points"]) == ("green", 40)
    assert _one(dst, f"/emails/{maps['email'][ids['welcome_fr']]}", "email")["subject"] == "Bonjour"


class Failing(Api):
    """The target's API failing once, after `after` calls matching `path`, to interrupt a run."""

    def __init__(self, base, path, after):
        super().__init__(base, Credentials("admin", PASSWORD))
        self.path, self.after = path, after

    def call(self, method, path, body=None, query=None, key=""):
        if method == "POST" and path.startswith(self.path):
            self.after -= 1
            if self.after == 0:
                raise RuntimeError("interrupted")
        return super().call(method, path, body, query, key)


def test_an_interrupted_run_then_a_rerun_copies_each_document_once(tmp_path):
    source, target = (Stack(tmp_path / name / "data") for name in ("source", "target"))
    try:
        src, dst = _client(source), _client(target)
        for at in range(0, 250, 125):
            src.ok(
                "POST", "/contacts/batch/new", [{"email": f"p{at + i}@example.com", "points": i} for i in range(125)]
            )
        for n in range(3):
            src.new("/emails", {"name": f"E{n}", "subject": "S", "customHtml": "<p>x</p>"})
        origin = Api(_base(source), Credentials("admin", PASSWORD))
        trigger = dst.new("/points/triggers", {"name": "Ten", "points": 10, "isPublished": True})
        with pytest.raises(guard.LiveDestination, match="point trigger"):  # copied points would fire it
            mover.move(Run(origin, Api(_base(target), Credentials("admin", PASSWORD)), progress=None))
        assert dst.ok("GET", "/contacts")["total"] in (0, "0")
        dst.ok("PATCH", f"/points/triggers/{trigger}/edit", {"isPublished": False})
        # the answer of the second contact batch is lost before its mapping is stored
        with pytest.raises(RuntimeError):
            mover.move(Run(origin, Failing(_base(target), "/movein/mappings/contact", 2), workers=1, progress=None))
        with pytest.raises(RuntimeError):  # an email created whose mapping write fails
            mover.move(Run(origin, Failing(_base(target), "/movein/mappings/email", 2), workers=1, progress=None))
        report = mover.move(Run(origin, Api(_base(target), Credentials("admin", PASSWORD)), progress=None))
        assert report.kinds["contact"].failed == 0 and report.kinds["email"].failed == 0
        assert dst.ok("GET", "/contacts")["total"] in (250, "250")
        assert dst.ok("GET", "/emails")["total"] in (3, "3")  # replayed, not created twice
        assert len(_mapping(target, "contact")) == 250 and len(_mapping(target, "email")) == 3
        again = mover.move(Run(origin, Api(_base(target), Credentials("admin", PASSWORD)), progress=None))
        assert again.kinds["contact"].copied == 0 and again.kinds["email"].copied == 0
    finally:
        source.stop()
        target.stop()


# Six pages of contacts (source.PAGE = 200): killed once the first page is mapped, four or five pages are
# left to store or map (~0.6 s each with one worker), enough to be killed mid-contacts; more only takes longer.
KILLED_CONTACTS = 1200


def _contacts_by_email(client):
    """Every contact's email -> its field values (id left out), by the `next` cursor."""
    out, path = {}, "/contacts?limit=200&orderBy=id"
    while path:
        answer = client.ok("GET", path)
        for contact in _rows(answer, "contacts"):
            values = {k: v for k, v in contact["fields"]["all"].items() if k != "id"}
            assert values["email"] not in out, f"{values['email']} copied twice"
            out[values["email"]] = values
        cursor = answer.get("next")
        path = f"/contacts?limit=200&orderBy=id&after={cursor}" if isinstance(cursor, str) else None
    return out


def test_a_run_killed_halfway_and_restarted_finishes_as_an_uninterrupted_one(tmp_path):
    """SIGKILL mid-contacts (some pages stored and mapped, some stored and not mapped, some not
    stored), then a rerun: each contact copied exactly once, every kind whole, as from one run."""
    source, target = (Stack(tmp_path / name / "data") for name in ("source", "target"))
    try:
        src, dst = _client(source), _client(target)
        for at in range(0, KILLED_CONTACTS, 200):
            people = [{"email": f"k{at + i}@example.com", "firstname": f"K{at + i}", "points": i} for i in range(200)]
            src.ok("POST", "/contacts/batch/new", people)
        vip = src.new("/segments", {"name": "VIP", "alias": "vip"})
        src.ok("POST", f"/segments/{vip}/contacts/add", {"ids": list(range(1, 401))})
        for n in range(3):
            src.new("/emails", {"name": f"E{n}", "subject": "S", "customHtml": "<p>x</p>"})
        login = ["--from-user", "admin", "--from-password", PASSWORD, "--to-user", "admin", "--to-password", PASSWORD]
        # one call at a time on each side: the local stacks move ~350 contacts/s, over in seconds otherwise
        command = [sys.executable, "-m", "chalicelib.cli", "--json", "move-in", "--quiet", "--workers", "1"]
        command += ["--from", _base(source), "--to", _base(target), *login]
        run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while len(_mapping(target, "contact")) < 200 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert run.poll() is None, f"the move ended before it could be killed halfway: {run.communicate()[1]}"
        os.kill(run.pid, signal.SIGKILL)
        assert run.wait() == -signal.SIGKILL
        halfway = len(_mapping(target, "contact"))
        assert 0 < halfway < KILLED_CONTACTS, halfway  # killed in the middle of the contacts
        report = _move(source, target)
        assert report["kinds"]["contact"]["failed"] == 0 and report["kinds"]["contact"]["skipped"] >= halfway
        assert _contacts_by_email(dst) == _contacts_by_email(src)  # each once, with every value
        maps = _mapping(target, "contact")
        assert len(maps) == KILLED_CONTACTS and len(set(maps.values())) == KILLED_CONTACTS
        members = _rows(dst.ok("GET", "/contacts?search=segment:vip&limit=1&minimal=true"), "contacts")
        assert int(dst.ok("GET", "/contacts?search=segment:vip&limit=1")["total"]) == 400 and members
        assert int(dst.ok("GET", "/emails")["total"]) == 3
        again = _move(source, target)["kinds"]
        assert all(k["copied"] == 0 and k["updated"] == 0 for name, k in again.items() if name != "membership")
    finally:
        source.stop()
        target.stop()
