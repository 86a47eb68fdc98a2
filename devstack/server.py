"""The local stack: the whole service on one machine with an embedded AWS (moto, in process).

`make run` starts it: tables, queues and the bucket are created, the journal under DATA_DIR
is loaded, default fields and the administrator are created on first start, the API is served
on 127.0.0.1:PORT and the workers (queue consumers, periodic jobs) run in threads. Every write
is journaled before its answer, so a restart or a kill -9 loses nothing (`devstack/journal.py`);
requests and workers hold the embedded AWS one call at a time (`devstack/capture.py`). The
embedded AWS is also served on a loopback port recorded in DATA_DIR/local-aws.json, so tools
(the admin CLI) act on the running stack.
"""

from __future__ import annotations

import collections
import gc
import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

for _name, _value in (
    ("STAGE", "local"),
    ("AWS_DEFAULT_REGION", "us-east-1"),
    ("AWS_ACCESS_KEY_ID", "local"),
    ("AWS_SECRET_ACCESS_KEY", "local"),
):
    os.environ.setdefault(_name, _value)

from chalice.config import Config  # noqa: E402
from chalice.local import ChaliceRequestHandler  # noqa: E402
from moto import mock_aws  # noqa: E402

if TYPE_CHECKING:
    import socket

    from chalice.app import Chalice
    from werkzeug.serving import BaseWSGIServer

    from devstack.gateway import ApiGateway
    from devstack.journal import Journal

COMPACT_CHECK_SECONDS = 5.0
GC_IDLE_SECONDS = 2.0
STOP_POLL_SECONDS = 0.05  # how often the servers' loops look for a stop (socketserver's 0.5 s made each stop wait)
SECRET_PARAMETER = re.compile(
    r"\b(access_token|code|code_verifier|refresh_token|client_secret|oauth_token|oauth_verifier|sig|token)=[^&\s]*"
)
log = logging.getLogger("devserver")
_activity: collections.deque[float] = collections.deque(maxlen=1)  # when the last request came (monotonic seconds)


def redact(text: str) -> str:
    """The text with the values of secret query parameters hidden (access log lines)."""
    return SECRET_PARAMETER.sub(r"\1=[hidden]", text)


class Synced:
    """A gateway whose answers leave only after the journal is on disk."""

    def __init__(self, gateway: ApiGateway, journal: Journal) -> None:
        self.gateway, self.journal = gateway, journal

    def handle_request(self, **request: Any) -> dict[str, Any]:
        """The gateway's answer, once the writes it made are on disk."""
        _activity.append(time.monotonic())
        response = self.gateway.handle_request(**request)
        self.journal.sync()
        return response


def _collect_when_idle(stop: threading.Event) -> None:
    """Python's full garbage collections scan every object, the stored items included (seconds
    at 100k contacts, with every thread stopped), so they are off during work and run here once
    no request came for GC_IDLE_SECONDS."""
    collected_at = time.monotonic()
    while not stop.wait(GC_IDLE_SECONDS):
        last = _activity[-1] if _activity else 0
        if collected_at < last < time.monotonic() - GC_IDLE_SECONDS:
            gc.collect()
            collected_at = time.monotonic()


class Handler(ChaliceRequestHandler):
    """Chalice's local handler with our gateway, TCP_NODELAY and a journal synced before answers."""

    disable_nagle_algorithm = True

    def __init__(
        self,
        request: socket.socket,
        client_address: tuple[str, int],
        server: Server,
        app_object: Chalice,
        config: Config,
        journal: Journal,
    ) -> None:
        from devstack.gateway import ApiGateway

        # Synced stands in for the LocalGateway: it answers `handle_request`, all the handler calls
        gateway = ApiGateway(app_object, config, source_ip=client_address[0])  # the peer, as API Gateway's sourceIp
        self.local_gateway = Synced(gateway, journal)  # type: ignore[assignment]
        BaseHTTPRequestHandler.__init__(self, request, client_address, server)

    def __getattr__(self, name: str) -> Any:
        """`do_TRACE`, `do_CONNECT` and any other method Chalice's handler lacks: the JSON 405 every
        route answers to a wrong method, rather than http.server's HTML 501."""
        if name.startswith("do_"):
            return self._not_allowed
        raise AttributeError(name)

    def _not_allowed(self) -> None:
        """Answer the JSON 405 (the request's body, if any, is read first so the connection stays usable)."""
        from chalicelib.api import errors, routing

        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        body = json.dumps(errors.body(405, f"Method {self.command} is not allowed here.")).encode()
        self._send(405, dict(errors.headers(), Allow=", ".join(sorted(routing.METHODS))), body)

    def parse_request(self) -> bool:
        """http.server's parsing of the request line and headers; a body announced over API Gateway's
        10 MB quota is answered its 413 at once, unread, and the connection closed (chalice's handler
        would read it whole into memory first)."""
        if not super().parse_request():
            return False
        from chalicelib.api import errors
        from devstack import gateway

        announced = (self.headers.get("Content-Length") or "").strip()
        if not announced.isdigit() or int(announced) <= errors.GATEWAY_BODY_MAX_BYTES:
            return True
        answer = gateway.request_too_large()
        self.close_connection = True
        self._send(answer["statusCode"], dict(answer["headers"], Connection="close"), answer["body"].encode())
        return False

    def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
        """Write a whole answer."""
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # `format`: BaseHTTPRequestHandler's name
        """The access log line, secrets redacted (off with ACCESS_LOG=0)."""
        if os.environ.get("ACCESS_LOG", "1") != "0":
            super().log_message(format, *(redact(str(a)) for a in args))


class Server(ThreadingHTTPServer):
    """The API's HTTP server: a thread per request, daemon threads, the port reusable at once."""

    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up is not an error of the server (no traceback for it)."""
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def _per_thread_requests(app: Chalice) -> Chalice:
    """Let requests run in parallel threads: Chalice keeps the current request on the app."""
    state = threading.local()

    def slot(name: str) -> property:
        """An attribute of the app kept per thread."""
        return property(lambda self: getattr(state, name, None), lambda self, value: setattr(state, name, value))

    app.__class__ = type(
        "PerThreadChalice",
        (app.__class__,),
        {"current_request": slot("current_request"), "lambda_context": slot("lambda_context")},
    )
    return app


def start_stack(data_dir: str, admin_user: str, admin_password: str | None) -> tuple[Journal, str | None]:
    """Create the embedded AWS resources, load the journal, start journaling, seed.
    Returns (the journal, a generated password or None)."""
    from chalicelib import aws_adapters, bootstrap, config
    from chalicelib.channels import mail
    from chalicelib.store import schema
    from devstack import capture, journal, snapshot

    bootstrap.assemble()  # the registry and the subscriber table, before the journal's replay or a worker
    aws_adapters.install()  # the local stack's ports: the embedded AWS
    schema.ensure_resources()
    mail.verify_sender(config.active().MAILER_FROM_EMAIL)  # SES sends only from verified senders
    with capture.serialized():
        loaded = snapshot.restore(data_dir)
    print(f"Loaded {loaded} records from {data_dir}", flush=True)
    writes = journal.Journal(os.path.join(data_dir, "journal"))
    capture.start(writes)
    bootstrap.ensure_ready()
    generated = bootstrap.ensure_admin(admin_user, admin_password)
    writes.sync()
    return writes, generated


def _serve_aws(data_dir: str, port: int, journal: Journal) -> BaseWSGIServer:
    """Serve the embedded AWS on 127.0.0.1 for tools; each request holds it like an app call."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import make_server

    from devstack import capture

    backend = DomainDispatcherApplication(create_backend_app)

    def locked(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        with capture.serialized():
            answer = list(backend(environ, start_response))
        journal.sync()
        return answer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = make_server("127.0.0.1", 0, locked, threaded=True)
    threading.Thread(target=server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True).start()
    record = {"endpoint": f"http://127.0.0.1:{server.server_port}", "pid": os.getpid(), "port": port}
    with open(os.path.join(data_dir, "local-aws.json"), "w") as handle:
        json.dump(record, handle)
    return server


def _compact(journal: Journal, upto: int) -> None:
    """Fold the closed segments up to `upto` into a snapshot, in another process."""
    done = subprocess.run(
        [sys.executable, "-m", "devstack.journal", "compact", str(journal.directory), str(upto)],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        log.error("journal compaction failed: %s", done.stderr.strip())


def _compaction_loop(journal: Journal, stop: threading.Event) -> None:
    """Compact the segments start-up loaded, then each segment once it is due (`Journal.due`)."""
    from devstack.journal import files

    if any(kind == "journal" and number < journal.number for kind, number in files(journal.directory)):
        _compact(journal, journal.number - 1)
    while not stop.wait(COMPACT_CHECK_SECONDS):
        if journal.due():
            _compact(journal, journal.rotate())


def _stop_signals() -> int:
    """The read end of a pipe that SIGINT and SIGTERM write a byte to; the main thread reads it and stops
    the stack itself. A handler that did more (set an Event) could deadlock: a second signal (make forwards
    one to the whole group) ran while the first handler held the Event's lock, in the same main thread.
    The byte is written by Python's C-level handler (`set_wakeup_fd`), in whichever thread the kernel
    delivered the signal to: a Python handler runs only once the main thread runs, which a blocking read
    in it would never do when the signal interrupted another thread."""
    reader, writer = os.pipe()
    os.set_blocking(writer, False)
    signal.set_wakeup_fd(writer, warn_on_full_buffer=False)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _noted)
    return reader


def _noted(signum: int, frame: object) -> None:
    """The Python handler of SIGINT and SIGTERM: nothing, the byte in the wakeup pipe says it all."""


def serve(port: int, data_dir: str, admin_user: str, admin_password: str | None) -> None:
    """Run until SIGINT/SIGTERM."""
    from devstack import capture, patches, ses_simulator

    patches.install()
    ses_simulator.later(1.0)  # the simulator's feedback comes after the send is recorded, as from SES
    gc.set_threshold(*gc.get_threshold()[:2], 1_000_000)  # full collections: `_collect_when_idle`
    gc.disable()  # until served: the start's ~250k objects live on, collecting them spent ~0.15 s CPU
    with mock_aws():
        writes, generated = start_stack(data_dir, admin_user, admin_password)
        from app import app

        _per_thread_requests(app)
        server = Server(
            ("127.0.0.1", port),
            lambda request, address, server: Handler(
                request, address, server, app_object=app, journal=writes, config=Config.create(chalice_stage="local")
            ),
        )
        stop = threading.Event()
        stopping = _stop_signals()
        threading.Thread(target=server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True).start()
        threading.Thread(target=_compaction_loop, args=(writes, stop), daemon=True).start()
        threading.Thread(target=_collect_when_idle, args=(stop,), daemon=True).start()
        from devstack import workers

        workers.start(stop, writes.sync)
        aws_server = _serve_aws(data_dir, port, writes)
        from devstack import faults

        if faults.rate_from_environment():  # after the first start: FAULT_RATE fails that share of AWS calls
            faults.install(faults.rate_from_environment())
        if generated:
            print(f"Administrator created: user {admin_user!r}, password {generated!r} (shown once)", flush=True)
        gc.freeze()  # the start's objects, left out of every later collection (a full one scanned them: ~0.1 s)
        gc.enable()
        print(f"Serving on http://127.0.0.1:{port} (data in {data_dir})", flush=True)
        os.read(stopping, 1)  # the first SIGINT or SIGTERM; later ones only write to the pipe (or not: full)
        stop.set()
        server.shutdown()
        aws_server.shutdown()
        os.remove(os.path.join(data_dir, "local-aws.json"))
        with capture.LOCK:
            capture.stop()
            writes.close()
        print("Stopped; data saved.", flush=True)


def _admin_password(environ: Mapping[str, str]) -> str | None:
    """The first administrator's password: ADMIN_PASSWORD_HASH (an argon2 hash, stored as it is:
    the password itself never in the environment, and no hashing at start), else ADMIN_PASSWORD,
    else None (one is generated)."""
    from chalicelib.auth import passwords

    if environ.get("ADMIN_PASSWORD_HASH"):
        return passwords.hashed(environ["ADMIN_PASSWORD_HASH"])
    return environ.get("ADMIN_PASSWORD") or None


def main() -> int:
    """`make run`: serve DATA_DIR on PORT (environment, with the local defaults) until stopped."""
    from chalicelib import config

    config.install(config.Settings.from_environment(os.environ))
    data_dir = os.path.abspath(os.environ.get("DATA_DIR", ".data"))
    os.makedirs(data_dir, exist_ok=True)
    serve(
        int(os.environ.get("PORT", "8000")),
        data_dir,
        os.environ.get("ADMIN_USER", "admin"),
        _admin_password(os.environ),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
