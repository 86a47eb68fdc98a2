"""The workloads `make capacity` measures. Each seeds what it needs first (not measured), then
runs its requests inside the meter; `per` names what one unit of the report is (a request, a
contact imported, a message sent, a hit).

- `mix` (issue 29): 40 % GET contact, 15 % PATCH, 10 % create, 10 % list page, 20 % tracking
  pixel (half of them new visitors), 5 % point adds, over SEED contacts.
- `import`: `POST /api/contacts/batch/new`, 200 new contacts per request.
- `segment-send`: a segment of N members, `POST /api/emails/{id}/send`, the workers drained.
- `sms-broadcast`: a published `list` text message to a segment of N members with mobile numbers, the
  minute job's walks queued and the workers drained (the batches of `send_batches.py`, over SNS).
- `tracking`: the site-tracking mix: tracking pixel and landing page, new and known visitors.
- `landing-page`: one busy landing page, every hit on it, 20 % of them new visitors (issue 29: what
  one page's own keys take).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from devstack.capacity.stack import BROWSER, Stack

SEED = 2000
BATCH = 200
PIXEL = "/mtracking.gif?page_url=https%3A%2F%2Fsite.example%2Fpricing"
PAGE_ALIAS = "capacity-offer"


@dataclass
class World:
    """What the seeding made: contact ids, and the ids a workload made for itself."""

    contacts: list[int] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    counter: int = 0

    def next(self) -> int:
        """A number used once per run (new emails, visitor addresses)."""
        self.counter += 1
        return self.counter


@dataclass(frozen=True)
class Workload:
    """A named workload: seed (not measured), then `run` (measured) returning how many `per` it served."""

    name: str
    per: str
    default: int
    seed: Callable[[Stack, World, int], None]
    run: Callable[[Stack, World, int], int]


def seed_contacts(stack: Stack, world: World, count: int, city: str = "Prague", mobile: bool = False) -> None:
    """`count` contacts through the batch endpoint (with mobile numbers when `mobile`), their ids kept."""
    for start in range(0, count, BATCH):
        rows = [
            {"email": f"seed{world.next()}@example.com", "firstname": f"S{start + n}", "city": city}
            | ({"mobile": f"+1415{start + n:07d}"} if mobile else {})
            for n in range(min(BATCH, count - start))
        ]
        answer = stack.call("POST", "/api/contacts/batch/new", rows)
        world.contacts.extend(int(contact["id"]) for contact in answer["contacts"])
    stack.drain()


def _seed_site(stack: Stack, world: World, count: int) -> None:
    seed_contacts(stack, world, SEED)
    body = {"title": "Capacity offer", "alias": PAGE_ALIAS, "customHtml": "<h1>Hi {contactfield=firstname|friend}</h1>"}
    stack.call("POST", "/api/pages/new", body)


def _visitor(world: World, known: bool) -> dict[str, Any]:
    """Headers and address of a browser: a known contact's (signed visitor cookie) or a new one's."""
    headers = {"User-Agent": BROWSER, "Accept": "*/*"}
    if known:
        from chalicelib.domain.kernel.context import Context
        from chalicelib.domain.web import visitors

        contact = random.Random(world.next()).choice(world.contacts)
        headers["Cookie"] = f"mtc_id={contact}; mtc_sid={visitors.token(contact, Context())}"
    number = world.next()
    return {"headers": headers, "source_ip": f"10.{number // 65536 % 256}.{number // 256 % 256}.{number % 256}"}


def _hit(stack: Stack, world: World, path: str, known: bool) -> None:
    stack.call("GET", path, **_visitor(world, known))


MIX: list[tuple[float, str]] = [
    (0.40, "get"),
    (0.15, "patch"),
    (0.10, "create"),
    (0.10, "list"),
    (0.10, "pixel-new"),
    (0.10, "pixel-known"),
    (0.05, "points"),
]


def _mix_step(stack: Stack, world: World, operation: str, pick: random.Random) -> None:
    contact = pick.choice(world.contacts)
    if operation == "get":
        stack.call("GET", f"/api/contacts/{contact}")
    elif operation == "patch":
        stack.call("PATCH", f"/api/contacts/{contact}/edit", {"city": f"City{world.next()}"})
    elif operation == "create":
        stack.call("POST", "/api/contacts/new", {"email": f"new{world.next()}@example.com", "firstname": "New"})
    elif operation == "list":
        stack.call("GET", "/api/contacts?limit=30")
    elif operation == "points":
        stack.call("POST", f"/api/contacts/{contact}/points/plus/5")
    else:
        _hit(stack, world, PIXEL, operation == "pixel-known")


def operations(count: int, weights: list[tuple[float, str]]) -> list[str]:
    """`count` operations in the given shares (exact counts, rounded), in a fixed shuffled order."""
    chosen = [name for share, name in weights for _ in range(round(share * count))]
    random.Random(29).shuffle(chosen)
    return chosen


def _run_mix(stack: Stack, world: World, count: int) -> int:
    pick = random.Random(2029)
    chosen = operations(count, MIX)
    for operation in chosen:
        _mix_step(stack, world, operation, pick)
    stack.drain()
    return len(chosen)


def _seed_import(stack: Stack, world: World, count: int) -> None:
    seed_contacts(stack, world, SEED)


def _run_import(stack: Stack, world: World, count: int) -> int:
    imported = 0
    for start in range(0, count, BATCH):
        rows = [
            {"email": f"import{world.next()}@example.com", "firstname": f"I{start + n}", "city": "Brno"}
            for n in range(min(BATCH, count - start))
        ]
        imported += len(stack.call("POST", "/api/contacts/batch/new", rows)["contacts"])
    stack.drain()
    return imported


def _seed_send(stack: Stack, world: World, count: int) -> None:
    seed_contacts(stack, world, SEED)
    seed_contacts(stack, world, count, city="Segmentville")
    rule = {"glue": "and", "field": "city", "object": "lead", "type": "text", "operator": "="}
    filters = [dict(rule, properties={"filter": "Segmentville"})]
    segment = stack.call("POST", "/api/segments/new", {"name": "Capacity", "filters": filters})["list"]["id"]
    stack.drain()
    html = '<p>Hello {contactfield=firstname|there}</p><a href="https://shop.example/">Shop</a>{unsubscribe_text}'
    body = {
        "name": "Capacity",
        "subject": "Hi {contactfield=firstname}",
        "customHtml": html,
        "emailType": "list",
        "lists": [segment],
    }
    world.extra["email"] = stack.call("POST", "/api/emails/new", body)["email"]["id"]


def _run_send(stack: Stack, world: World, count: int) -> int:
    stack.call("POST", f"/api/emails/{world.extra['email']}/send")
    stack.drain()
    return count  # the report shows SES's calls beside it: one per message sent


def _seed_broadcast(stack: Stack, world: World, count: int) -> None:
    seed_contacts(stack, world, count, city="Textville", mobile=True)
    rule = {"glue": "and", "field": "city", "object": "lead", "type": "text", "operator": "="}
    filters = [dict(rule, properties={"filter": "Textville"})]
    segment = stack.call("POST", "/api/segments/new", {"name": "Texts", "filters": filters})["list"]["id"]
    stack.drain()
    body = {"name": "Flash", "message": "Hi {contactfield=firstname}", "smsType": "list", "lists": [segment]}
    stack.call("POST", "/api/smses/new", dict(body, publishUp="2020-01-01T00:00:00+00:00"))


def _run_broadcast(stack: Stack, world: World, count: int) -> int:
    from chalicelib.domain.kernel import clock
    from chalicelib.domain.messaging import broadcasts

    broadcasts.queue_walks(clock.now_iso())  # the minute job's part
    stack.drain()
    return count  # the report shows SNS's calls beside it: one per message sent


TRACKING: list[tuple[float, str]] = [(0.3, "pixel-new"), (0.3, "pixel-known"), (0.2, "page-new"), (0.2, "page-known")]


def _run_tracking(stack: Stack, world: World, count: int) -> int:
    chosen = operations(count, TRACKING)
    for operation in chosen:
        kind, visitor = operation.split("-")
        _hit(stack, world, PIXEL if kind == "pixel" else f"/{PAGE_ALIAS}", visitor == "known")
    stack.drain()
    return len(chosen)


LANDING: list[tuple[float, str]] = [(0.2, "page-new"), (0.8, "page-known")]


def _run_landing(stack: Stack, world: World, count: int) -> int:
    chosen = operations(count, LANDING)
    for operation in chosen:
        _hit(stack, world, f"/{PAGE_ALIAS}", operation == "page-known")
    stack.drain()
    return len(chosen)


WORKLOADS = {
    workload.name: workload
    for workload in (
        Workload("mix", "request", 1000, _seed_site, _run_mix),
        Workload("import", "contact", 2000, _seed_import, _run_import),
        Workload("segment-send", "message", 500, _seed_send, _run_send),
        Workload("sms-broadcast", "message", 500, _seed_broadcast, _run_broadcast),
        Workload("tracking", "hit", 1000, _seed_site, _run_tracking),
        Workload("landing-page", "hit", 1000, _seed_site, _run_landing),
    )
}
