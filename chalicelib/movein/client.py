"""One side's HTTP API: JSON calls with Basic or OAuth2 client-credential authentication, retried
with backoff on 429, 5xx and dropped connections; one kept-alive connection per thread, so
concurrent workers do not pay a TCP handshake a call."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import random
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

RETRIED = frozenset({429, 500, 502, 503, 504})
ATTEMPTS = 6


class ApiFailure(Exception):
    """An answer that is not a success after the retries: its status and Mautic's error message."""

    def __init__(self, method: str, path: str, status: int, message: str) -> None:
        super().__init__(f"{method} {path}: {status} {message}")
        self.status = status


@dataclass
class Credentials:
    """Basic credentials (`user`, `password`) or an OAuth2 client (`client_id`, `client_secret`)."""

    user: str | None = None
    password: str | None = None
    client_id: str | None = None
    client_secret: str | None = None


@dataclass
class Api:
    """The API at `base` (`https://host[:port][/path]`, without `/api`)."""

    base: str
    credentials: Credentials
    timeout: float = 60.0
    pause: float = 0.5  # the first backoff; doubles per retry, with jitter
    _local: threading.local = field(default_factory=threading.local, repr=False)
    _token: str | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def call(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None, key: str = "") -> Any:
        """The JSON answer of `method` on `/api<path>`; `key` an Idempotency-Key; ApiFailure otherwise."""
        target = f"{self._prefix()}/api{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        data = None if body is None else json.dumps(body).encode()
        for attempt in range(ATTEMPTS):
            status, headers, raw = self._send(method, target, data, key)
            if status == 401 and self.credentials.client_id and attempt == 0:
                self._token = None  # an expired token: fetch another once
                continue
            if status not in RETRIED or attempt == ATTEMPTS - 1:
                return self._answer(method, path, status, raw)
            time.sleep(self._backoff(attempt, headers.get("retry-after")))
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns on its last attempt

    def upload(self, path: str, name: str, data: bytes, key: str = "") -> Any:
        """POST a file as multipart `file` to `/api<path>` (retried as `call`); the JSON answer. The
        boundary comes from the data, so a replay under the same `key` is the same request."""
        boundary = f"movein{hashlib.sha256(data).hexdigest()[:32]}"
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n"
            ).encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        media = f"multipart/form-data; boundary={boundary}"
        for attempt in range(ATTEMPTS):
            status, headers, raw = self._send("POST", f"{self._prefix()}/api{path}", body, key, media)
            if status not in RETRIED or attempt == ATTEMPTS - 1:
                return self._answer("POST", path, status, raw)
            time.sleep(self._backoff(attempt, headers.get("retry-after")))
        raise AssertionError("unreachable")  # pragma: no cover

    def download(self, url: str) -> tuple[int, str | None, bytes]:
        """A public URL's status, `Location` (redirects not followed) and body, without credentials."""
        parts = urllib.parse.urlsplit(url)
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        for attempt in range(ATTEMPTS):
            connection = kind(parts.netloc, timeout=self.timeout)
            try:
                connection.request("GET", urllib.parse.urlunsplit(("", "", parts.path, parts.query, "")))
                response = connection.getresponse()
                status, location, body = response.status, response.getheader("Location"), response.read()
            except (OSError, http.client.HTTPException):
                status, location, body = 503, None, b""
            finally:
                connection.close()
            if status not in RETRIED or attempt == ATTEMPTS - 1:
                return status, location, body
            time.sleep(self._backoff(attempt, None))
        raise AssertionError("unreachable")  # pragma: no cover

    def _backoff(self, attempt: int, retry_after: str | None) -> float:
        """Seconds to wait before retry `attempt`: the server's Retry-After, else exponential with jitter."""
        if retry_after and retry_after.isdigit():
            return float(retry_after)
        return self.pause * (2**attempt) * (0.5 + random.random())

    def _answer(self, method: str, path: str, status: int, raw: bytes) -> Any:
        """The parsed body of a success; ApiFailure with Mautic's first error message otherwise."""
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        if 200 <= status < 300:
            return parsed
        errors = parsed.get("errors") if isinstance(parsed, dict) else None
        message = errors[0].get("message", "") if isinstance(errors, list) and errors else raw[:200].decode("latin-1")
        raise ApiFailure(method, path, status, str(message))

    def _send(
        self, method: str, target: str, data: bytes | None, key: str, media: str = "application/json"
    ) -> tuple[int, dict[str, str], bytes]:
        """One exchange on this thread's connection; a dropped connection is a 503 to retry."""
        headers = {"Authorization": self._authorization(), "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = media
        if key:
            headers["Idempotency-Key"] = key
        try:
            connection = self._connection()
            connection.request(method, target, body=data, headers=headers)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        except (OSError, http.client.HTTPException):
            self._local.connection = None
            return 503, {}, b""

    def _prefix(self) -> str:
        """The base URL's path (a service under a stage path: `/prod`)."""
        return urllib.parse.urlsplit(self.base).path.rstrip("/")

    def _connection(self) -> http.client.HTTPConnection:
        """The calling thread's connection, opened on first use or after a failure."""
        connection = getattr(self._local, "connection", None)
        if connection is None:
            parts = urllib.parse.urlsplit(self.base)
            kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
            connection = kind(parts.netloc, timeout=self.timeout)
            self._local.connection = connection
        return connection

    def _authorization(self) -> str:
        """The Authorization header: Basic, or a bearer token fetched with the client's credentials."""
        c = self.credentials
        if c.client_id:
            with self._lock:
                if self._token is None:
                    self._token = self._fetch_token()
            return f"Bearer {self._token}"
        return "Basic " + base64.b64encode(f"{c.user}:{c.password}".encode()).decode()

    def _fetch_token(self) -> str:
        """An access token of the client_credentials grant (`/oauth/v2/token`)."""
        form = urllib.parse.urlencode(
            {
                "grant_type": "client_credentials",
                "client_id": self.credentials.client_id,
                "client_secret": self.credentials.client_secret,
            }
        ).encode()
        parts = urllib.parse.urlsplit(self.base)
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        connection = kind(parts.netloc, timeout=self.timeout)
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        connection.request("POST", f"{self._prefix()}/oauth/v2/token", body=form, headers=headers)
        response = connection.getresponse()
        answer = self._answer("POST", "/oauth/v2/token", response.status, response.read())
        connection.close()
        return str(answer["access_token"])
