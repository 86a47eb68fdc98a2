"""Issue 44: an erased contact's copies in the local outbox (`.eml` to its address, `.json` to its
mobile or phone number) go with the rest of its data, in the erasure job's `outbox` step; copies
sent to anyone else stay."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from chalicelib import config
from chalicelib.channels import mail, outbox
from chalicelib.domain.contacts import erasure
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import service, subscribers
from chalicelib.domain.kernel.context import Context
from chalicelib.store import port as store
from devstack.memory import MemoryStore


def _email(to: str) -> Path:
    message = mail.Mail("news@example.com", "News", to, "Someone", "Spring offer", "<p>Hi</p>", "Hi")
    return Path(str(outbox.write(f"m-{to}", "eml", mail.mime(message))))


def _text(to: str) -> Path:
    return Path(str(outbox.write(f"s-{to}", "json", json.dumps({"to": to, "message": "Hi", "messageId": "s"}))))


@pytest.fixture
def ctx(seeded_store: MemoryStore) -> Context:
    assert config.active().OUTBOX_DIR  # tests/conftest.py gives the session an outbox, as the local stage has
    return Context(user=next(store.iterate("user")))


def test_the_erased_contacts_copies_leave_the_outbox(ctx):
    values = {"email": "Olga.Outbox@Example.com", "mobile": "+420 777 123 456", "phone": "00420 600 000 001"}
    contact, _ = service.create(CONTACT, values, ctx)
    theirs = [_email("olga.outbox@example.COM"), _text("+420777123456"), _text("+420600000001")]
    others = [_email("someone.else@example.com"), _text("+420777999888")]
    assert all(path.exists() for path in theirs + others)

    service.delete(CONTACT, contact["id"], Context(user=ctx.user))
    erasure.run(contact["id"])

    assert [path.name for path in theirs if path.exists()] == []
    assert all(path.exists() for path in others)
    assert "outbox" in [name for name, _ in subscribers.erase_steps()]


def test_erasing_without_an_outbox_or_recipients_touches_nothing(ctx):
    kept = _email("kept@example.com")
    assert outbox.erase([]) == 0 and outbox.erase(["", "nobody@example.com"]) == 0
    assert kept.exists()
    stray = Path(config.active().OUTBOX_DIR) / "notes.json"
    stray.write_text("[1, 2]")  # not a copy the service wrote: read as no recipient
    try:
        assert outbox.erase(["kept@example.com"]) == 1 and not kept.exists() and stray.exists()
    finally:
        os.remove(stray)
