"""The registry: every resource of the API by kind. Each capability declares its own resources
(`RESOURCES` of its `declarations.py`, listed once in `domain/wiring.py`; auth's users and roles in
`auth/declarations.py`); `bootstrap.assemble()` registers them all when a composition root starts, and
the standard routes, storage kinds and list behaviour are driven from the declarations."""

from collections.abc import Iterable

from chalicelib.domain.kernel.resources import Resource

_by_kind: dict[str, Resource] = {}


class NotInstalled(LookupError):
    """A resource was looked up before `bootstrap.assemble()` registered the declarations."""


def install(resources: Iterable[Resource]) -> None:
    """Register the declarations (in route order); registering the same tuple again is a no-op."""
    for resource in resources:
        _by_kind[resource.kind] = resource


def resource(kind: str) -> Resource:
    """The declaration of `kind`."""
    try:
        return _by_kind[kind]
    except KeyError:
        raise NotInstalled(f"no resource {kind!r}: call chalicelib.bootstrap.assemble() first") from None


def resources() -> tuple[Resource, ...]:
    """Every declaration, in registration order."""
    return tuple(_by_kind.values())
