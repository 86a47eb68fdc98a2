"""The registry: every resource of the API by kind. Each capability declares its own resources;
`domain/wiring.py` registers them all once, at start-up, and the standard routes, storage kinds
and list behaviour are driven from the declarations."""

_by_kind = {}


class NotInstalled(LookupError):
    """A resource was looked up before `domain.wiring` registered the declarations."""


def install(resources):
    """Register the declarations (in route order); registering the same tuple again is a no-op."""
    for resource in resources:
        _by_kind[resource.kind] = resource


def resource(kind):
    """The declaration of `kind`."""
    try:
        return _by_kind[kind]
    except KeyError:
        raise NotInstalled(f"no resource {kind!r}: import chalicelib.domain.wiring first") from None


def resources():
    """Every declaration, in registration order."""
    return tuple(_by_kind.values())
