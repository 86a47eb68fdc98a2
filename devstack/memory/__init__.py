"""In-memory implementations of the ports, for tests and local tools: the store (`store.py`) and
every other port (`adapters.py` builds the set). Never chosen by production code: devstack is left
out of deployment.zip and chalicelib may not import it."""

from devstack.memory.store import MemoryStore

__all__ = ["MemoryStore"]
