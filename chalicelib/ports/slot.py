"""The one implementation a port forwards to, set by a composition root (`adapters.install`)."""

from typing import Generic, TypeVar

T = TypeVar("T")


class NotInstalled(RuntimeError):
    """A port was called before a composition root installed the adapters."""


class Slot(Generic[T]):
    """Holds a port's implementation; empty until installed, never filled by an import."""

    def __init__(self, port: str) -> None:
        self.port = port
        self.held: list[T] = []

    def use(self, implementation: T | None) -> T | None:
        """Hold `implementation` (None: nothing); returns the one it replaces."""
        previous = self.held[0] if self.held else None
        self.held[:] = [implementation] if implementation is not None else []
        return previous

    def get(self) -> T:
        """The implementation held; `NotInstalled` (naming the fix) when none is."""
        if not self.held:
            raise NotInstalled(
                f"the {self.port} port has no adapter: a composition root installs them "
                "(chalicelib.aws_adapters.install() in app.py and the CLI; devstack.memory's set in tests)"
            )
        return self.held[0]
