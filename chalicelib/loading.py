"""Imports without the cyclic garbage collector: a cold start's share of CPU (docs/deploy.md "Cold start
per function").

Importing hundreds of modules creates objects by the hundred thousand (functions, classes, code,
dicts), so the collector runs full passes over them again and again while nothing they make is
garbage: about a tenth of a function's import time on python3.13. A block of imports pauses it, then
moves what was made to the permanent generation (`gc.freeze`), which later collections skip. Pauses
nest; the outermost resumes the collector if it ran before.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_paused: list[bool] = []  # per pause, innermost last: whether the collector was running before it


def pause() -> None:
    """Stop the collector until the matching `resume()`."""
    _paused.append(gc.isenabled())
    gc.disable()


def resume() -> None:
    """Freeze what the imports since the matching `pause()` made, and restart the collector if it ran."""
    gc.freeze()
    if _paused.pop():
        gc.enable()


@contextmanager
def imports() -> Iterator[None]:
    """A block of imports run with the collector paused (`pause`, `resume`)."""
    pause()
    try:
        yield
    finally:
        resume()
