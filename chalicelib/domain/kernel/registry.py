"""The registry: every resource of the API by kind. Each capability declares its own resources
(`RESOURCES` of its `declarations.py`, listed once in `domain/wiring.py` with the kinds it declares;
auth's users and roles in `auth/declarations.py`); `bootstrap.assemble()` installs that index when a
composition root starts, and the standard routes, storage kinds and list behaviour are driven from the
declarations.

A declarations module is imported on the first lookup of one of its kinds: a process loads the
capabilities it reads, not every capability (a worker's cold start, docs/deploy.md "Cold start per
function"); `resources()` imports them all."""

import importlib
from collections.abc import Mapping, Sequence

from chalicelib.domain.kernel.resources import Resource

_by_kind: dict[str, Resource] = {}
_declared_in: dict[str, str] = {}  # kind -> the module declaring it, in route order


class NotInstalled(LookupError):
    """A resource was looked up before `bootstrap.assemble()` registered the declarations."""


def install(declarations: Mapping[str, Sequence[str]]) -> None:
    """Index the declarations: each module (in route order) and the kinds its `RESOURCES` declare.
    Nothing is imported here; installing the same index again is a no-op."""
    for module, kinds in declarations.items():
        for kind in kinds:
            _declared_in[kind] = module


def resource(kind: str) -> Resource:
    """The declaration of `kind`."""
    found = _by_kind.get(kind)
    if found is not None:
        return found
    if kind not in _declared_in:
        raise NotInstalled(f"no resource {kind!r}: call chalicelib.bootstrap.assemble() first")
    _load(_declared_in[kind])
    return _by_kind[kind]


def _load(module: str) -> None:
    """Register what `module` declares; it must declare exactly the kinds the index lists for it."""
    declared: Sequence[Resource] = importlib.import_module(module).RESOURCES
    listed = [kind for kind, owner in _declared_in.items() if owner == module]
    if sorted(r.kind for r in declared) != sorted(listed):
        raise LookupError(f"{module} declares {[r.kind for r in declared]}, the index lists {listed}")
    for declaration in declared:
        _by_kind[declaration.kind] = declaration


def resources() -> tuple[Resource, ...]:
    """Every declaration, in registration order (importing every declarations module)."""
    return tuple(resource(kind) for kind in _declared_in)
