"""An HTTP receiver on 127.0.0.1 for tests of outbound requests (webhooks, automation actions)."""

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    headers: dict
    body: bytes
    status: int
    at: float
    method: str = "POST"
    path: str = ""

    @property
    def json(self):
        return json.loads(self.body)


class Receiver:
    """An HTTP server on 127.0.0.1 recording every request; answers the scripted statuses in turn,
    then `default`. `delay` seconds pass before each answer."""

    def __init__(self, statuses=(), default=200, delay=0.0):
        self.statuses, self.default, self.delay = list(statuses), default, delay
        self.received = []
        self.arrived = threading.Condition()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_port}/hook?source=test"

    def _handler(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                time.sleep(receiver.delay)
                with receiver.arrived:
                    status = receiver.statuses.pop(0) if receiver.statuses else receiver.default
                    receiver.received.append(
                        Received(dict(self.headers.items()), body, status, time.time(), self.command, self.path)
                    )
                    receiver.arrived.notify_all()
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", "/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_PUT = do_PATCH = do_DELETE = do_POST

            def log_message(self, *args):
                pass

        return Handler

    def wait(self, count, timeout=10.0):
        """The received requests once there are at least `count` (fails after `timeout`)."""
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.received) >= count, timeout), self.received
            return list(self.received)

    def close(self):
        self.server.shutdown()
        self.server.server_close()
