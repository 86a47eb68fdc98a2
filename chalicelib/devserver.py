"""The local stack: the whole service on one machine with an embedded AWS (moto, in process).

`make run` starts it: tables, queues and the bucket are created, the last snapshot under
DATA_DIR is loaded, default fields and the administrator are created on first start, the
API is served on 127.0.0.1:PORT and the workers (queue consumers, periodic jobs) run in threads. Writes are snapshotted to DATA_DIR every few seconds and on
Ctrl-C / SIGTERM, so data survives a restart. The embedded AWS is also served on a loopback
port recorded in DATA_DIR/local-aws.json, so tools (the admin CLI) act on the running stack.
"""
import json
import logging
import os
import re
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

for _name, _value in (("STAGE", "local"), ("AWS_DEFAULT_REGION", "us-east-1"),
                      ("AWS_ACCESS_KEY_ID", "local"), ("AWS_SECRET_ACCESS_KEY", "local")):
    os.environ.setdefault(_name, _value)

from chalice.config import Config  # noqa: E402
from chalice.local import ChaliceRequestHandler  # noqa: E402
from moto import mock_aws  # noqa: E402

SNAPSHOT_SECONDS = 2.0
SECRET_PARAMETER = re.compile(
    r"\b(access_token|code|code_verifier|refresh_token|client_secret|oauth_token|oauth_verifier|sig)=[^&\s]*")
LOCK = threading.RLock()  # moto is not thread-safe: one request or worker step at a time
_dirty = threading.Event()


def redact(text):
    """The text with the values of secret query parameters hidden (access log lines)."""
    return SECRET_PARAMETER.sub(r"\1=[hidden]", text)


class Handler(ChaliceRequestHandler):
    """Chalice's local handler with our gateway, TCP_NODELAY and one-at-a-time AWS access."""

    disable_nagle_algorithm = True

    def __init__(self, request, client_address, server, app_object, config):
        from chalicelib.gateway import ApiGateway
        self.local_gateway = ApiGateway(app_object, config)
        BaseHTTPRequestHandler.__init__(self, request, client_address, server)

    def _generic_handle(self):
        with LOCK:
            super()._generic_handle()
        if self.command != "GET":
            _dirty.set()

    do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = _generic_handle

    def log_message(self, format, *args):  # noqa: A002 - BaseHTTPRequestHandler's signature
        if os.environ.get("ACCESS_LOG", "1") != "0":
            super().log_message(format, *(redact(str(a)) for a in args))


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def start_stack(data_dir, admin_user, admin_password):
    """Create the embedded AWS resources, load the snapshot, seed. Returns a generated password or None."""
    from chalicelib import bootstrap, config
    from chalicelib.channels import mail
    from chalicelib.store import schema, snapshot
    schema.ensure_resources()
    mail.verify_sender(config.MAILER_FROM_EMAIL)  # SES sends only from verified senders
    snapshot.restore(data_dir)
    bootstrap.ensure_ready()
    return bootstrap.ensure_admin(admin_user, admin_password)


def _serve_aws(data_dir, port):
    """Serve the embedded AWS on 127.0.0.1 for tools; requests share the stack's lock."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import make_server
    backend = DomainDispatcherApplication(create_backend_app)

    def locked(environ, start_response):
        with LOCK:
            _dirty.set()
            return list(backend(environ, start_response))

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = make_server("127.0.0.1", 0, locked, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    record = {"endpoint": f"http://127.0.0.1:{server.server_port}", "pid": os.getpid(), "port": port}
    with open(os.path.join(data_dir, "local-aws.json"), "w") as handle:
        json.dump(record, handle)
    return server


def _snapshot_loop(data_dir, stop):
    from chalicelib.store import snapshot
    while not stop.wait(SNAPSHOT_SECONDS):
        if _dirty.is_set():
            _dirty.clear()
            with LOCK:
                snapshot.save(data_dir)


def serve(port, data_dir, admin_user, admin_password):
    """Run until SIGINT/SIGTERM, then write a last snapshot."""
    from chalicelib.store import localaws
    localaws.install()
    with mock_aws():
        generated = start_stack(data_dir, admin_user, admin_password)
        from app import app
        server = Server(("127.0.0.1", port), lambda *a: Handler(*a, app_object=app,
                                                                config=Config.create(chalice_stage="local")))
        stop = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
        threading.Thread(target=server.serve_forever, daemon=True).start()
        threading.Thread(target=_snapshot_loop, args=(data_dir, stop), daemon=True).start()
        from chalicelib.workers import local
        local.start(LOCK, stop, _dirty.set)
        aws_server = _serve_aws(data_dir, port)
        if generated:
            print(f"Administrator created: user {admin_user!r}, password {generated!r} (shown once)", flush=True)
        print(f"Serving on http://127.0.0.1:{port} (data in {data_dir})", flush=True)
        stop.wait()
        server.shutdown()
        aws_server.shutdown()
        os.remove(os.path.join(data_dir, "local-aws.json"))
        from chalicelib.store import snapshot
        with LOCK:
            snapshot.save(data_dir)
        print("Stopped; data saved.", flush=True)


def main():
    data_dir = os.path.abspath(os.environ.get("DATA_DIR", ".data"))
    os.makedirs(data_dir, exist_ok=True)
    serve(int(os.environ.get("PORT", "8000")), data_dir, os.environ.get("ADMIN_USER", "admin"),
          os.environ.get("ADMIN_PASSWORD") or None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
