"""The outbound ports in memory: mail and SMS kept as sent (and copied to the local outbox as over
SES and SNS), HTTP answered from the routes a test gives, the SNS fetch from the pages it gives."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from chalicelib.channels import outbox
from chalicelib.ports.http import Network, Result
from chalicelib.ports.mail import Mail, Rejected, mime
from chalicelib.ports.sms import e164


@dataclass
class Sent:
    """One message accepted: its id, the mail and its RFC 5322 bytes."""

    message_id: str
    mail: Mail
    raw: bytes


class MemoryMail:
    """Accepts every message that can be built; `sent` keeps them in order."""

    def __init__(self) -> None:
        self.sent: list[Sent] = []
        self._ids = itertools.count(1)

    def send(self, mail: Mail) -> str:
        """Keep the message and copy it to the outbox; its id. Rejected when it cannot be built."""
        try:
            raw = mime(mail)
        except ValueError as error:
            raise Rejected(f"The message cannot be built: {error}") from None
        message_id = f"memory-mail-{next(self._ids)}"
        self.sent.append(Sent(message_id, mail, raw))
        outbox.write(message_id, "eml", raw)
        return message_id

    def erase_copies(self, recipients: Iterable[str]) -> int:
        """Delete the local outbox's copies sent to these recipients (what was `sent` stays: a test's record)."""
        return outbox.erase(recipients)


class MemorySms:
    """Accepts texts to E.164 numbers; `sent` keeps `{to, message, messageId}` in order."""

    def __init__(self) -> None:
        self.sent: list[dict[str, str]] = []
        self._ids = itertools.count(1)

    def send(self, number: str, text: str) -> str:
        """Keep the text and copy it to the outbox; its id. Rejected for a number not in E.164 (as SNS)."""
        if e164(number) != number:
            raise Rejected(f"Invalid parameter: PhoneNumber Reason: {number} is not valid to publish to")
        record = {"to": number, "message": text, "messageId": f"memory-sms-{next(self._ids)}"}
        self.sent.append(record)
        outbox.write(record["messageId"], "json", json.dumps(record, indent=2))
        return record["messageId"]


@dataclass
class Request:
    """One request made."""

    method: str
    url: str
    body: bytes | None
    headers: dict[str, str]


@dataclass
class MemoryHttp:
    """Answers each URL of `routes` with its status; any other http(s) URL fails to connect, and a
    URL that is not http or https is refused (no retry), as the real one. `requests` keeps them."""

    routes: dict[str, int] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)

    def request(
        self,
        method: str,
        url: str,
        body: bytes | None,
        headers: Mapping[str, str],
        timeout: float,
        allowed: Iterable[Network] = (),
    ) -> Result:
        """The route's answer as a Result; never raises."""
        started = time.monotonic()
        if not url.startswith(("http://", "https://")):
            return Result(None, "The URL is not an http or https URL.", 0.0, retry=False)
        self.requests.append(Request(method, url, body, dict(headers)))
        status = self.routes.get(url)
        if status is None:
            return Result(None, "Connection failed: no route in memory", time.monotonic() - started)
        return Result(status, None if 200 <= status < 300 else f"HTTP {status}", time.monotonic() - started)


@dataclass
class MemoryFetcher:
    """The SNS fetch from `pages` (URL -> body); OSError for any other URL, as an unreachable host."""

    pages: dict[str, bytes] = field(default_factory=dict)
    fetched: list[str] = field(default_factory=list)

    def get(self, url: str) -> bytes:
        """The page's body; OSError when there is none."""
        self.fetched.append(url)
        if url not in self.pages:
            raise OSError(f"cannot fetch {url}")
        return self.pages[url]
