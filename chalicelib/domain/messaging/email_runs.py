"""The state of a segment send (`emailrun` / <email id>) and its progress counters; read when an
email is presented, written by `email_sends`."""

from collections.abc import Mapping

from chalicelib.domain.kernel.types import Doc

KIND = "emailrun"
OUTCOMES = ("sent", "failed", "skipped", "deferred")  # deferred: held back by a frequency cap


def counter(email_id: int | str, generation: int, name: str) -> str:
    """The counter of one outcome (or of `batches` done) of a run."""
    return f"emailrun#{int(email_id)}#{int(generation)}#{name}"


def counter_names(state: Doc) -> list[str]:
    """The names of every counter of a run: its outcomes, then `batches`."""
    return [counter(state["id"], state["generation"], name) for name in OUTCOMES + ("batches",)]


def view(state: Doc, counts: Mapping[str, int]) -> Doc:
    """What an email shows of its last segment send."""
    done = {name: counts.get(counter(state["id"], state["generation"], name), 0) for name in OUTCOMES}
    queued = int(state.get("queued") or 0)
    pending = queued - sum(done.values()) if state["status"] == "sending" else 0
    return {
        "status": state["status"],
        "lists": state.get("lists"),
        "limit": state.get("limit"),
        "queued": queued,
        **done,
        "pending": max(0, pending),
        "batches": state.get("batches") or 0,
        "batchesDone": counts.get(counter(state["id"], state["generation"], "batches"), 0),
        "queuedAt": state.get("queuedAt"),
        "startedAt": state.get("startedAt"),
        "finishedAt": state.get("finishedAt"),
    }
