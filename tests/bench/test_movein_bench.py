"""`move-in` between two local stacks (run with `make bench`): MOVEIN_CONTACTS contacts (default
20,000) seeded at the source, then the CLI moves them with MOVEIN_WORKERS workers (default 4).
Reported: contacts/s (the contacts step, and the whole run), the mover's resident memory sampled
through the run (its peak by quarter of the run: flat when the pages are not kept) and the load
average. Issue 45's goal: 500 contacts/s for the contacts step at 20,000 (docs/move-in.md)."""

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from tests.e2e.movein_seed import Client
from tests.e2e.test_local_stack import PASSWORD, ROOT, Stack

TOTAL = int(os.environ.get("MOVEIN_CONTACTS", "20000"))
WORKERS = int(os.environ.get("MOVEIN_WORKERS", "4"))
BATCH = 200


def _seed(client):
    """TOTAL contacts with a few fields and a tag, 200 a request from two clients."""

    def batch(at):
        people = [
            {
                "email": f"m{n}@example.com",
                "firstname": f"M{n}",
                "lastname": "Moved",
                "city": "Prague",
                "points": n % 50,
            }
            for n in range(at, min(at + BATCH, TOTAL))
        ]
        client.ok("POST", "/contacts/batch/new", [dict(p, tags=["moved"]) for p in people])

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(batch, range(0, TOTAL, BATCH)))


def _resident(pid):
    """The process's resident memory in MB (VmRSS), None once it has ended."""
    try:
        with open(f"/proc/{pid}/status") as status:
            line = next(line for line in status if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return None
    return int(line.split()[1]) / 1024


class Sampler(threading.Thread):
    """(seconds since start, resident MB) of a process every 100 ms until it ends."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.samples, self.start_at = pid, [], time.monotonic()

    def run(self):
        while (rss := _resident(self.pid)) is not None:
            self.samples.append((time.monotonic() - self.start_at, rss))
            time.sleep(0.1)

    def peaks(self):
        """The peak of each quarter of the run."""
        end = self.samples[-1][0] if self.samples else 0
        return [max((m for t, m in self.samples if q * end / 4 <= t <= (q + 1) * end / 4), default=0) for q in range(4)]


def test_move_in_rate_and_memory(tmp_path):
    source, target = Stack(tmp_path / "source" / "data"), Stack(tmp_path / "target" / "data")
    try:
        started = time.monotonic()
        _seed(Client(f"http://127.0.0.1:{source.port}", "admin", PASSWORD))
        print(f"\nseeded {TOTAL} contacts in {time.monotonic() - started:.1f} s")
        command = [sys.executable, "-m", "chalicelib.cli", "--json", "move-in", "--quiet", "--workers", str(WORKERS)]
        command += ["--from", f"http://127.0.0.1:{source.port}", "--to", f"http://127.0.0.1:{target.port}"]
        command += [
            "--from-user",
            "admin",
            "--from-password",
            PASSWORD,
            "--to-user",
            "admin",
            "--to-password",
            PASSWORD,
        ]
        started = time.monotonic()
        mover = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        sampler = Sampler(mover.pid)
        sampler.start()
        out, err = mover.communicate(timeout=3600)
        elapsed = time.monotonic() - started
        sampler.join()
        assert mover.returncode == 0, err + out
        contacts = json.loads(out)["kinds"]["contact"]
        assert (contacts["copied"], contacts["failed"]) == (TOTAL, 0)
        peaks = ", ".join(f"{p:.0f}" for p in sampler.peaks())
        rate, overall = TOTAL / contacts["seconds"], TOTAL / elapsed
        print(
            f"moved {TOTAL} contacts with {WORKERS} workers: contacts step {contacts['seconds']:.1f} s "
            f"({rate:.0f} contacts/s), whole run {elapsed:.1f} s ({overall:.0f} contacts/s); "
            f"mover resident memory peak by quarter of the run: {peaks} MB; load average {os.getloadavg()[0]:.1f}"
        )
    finally:
        source.stop()
        target.stop()
