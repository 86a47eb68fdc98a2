"""Immutable records without the run time's frozen machinery: a cold start's share of CPU (docs/deploy.md
"Cold start per function").

`@dataclass(frozen=True)` generates a `__setattr__` and a `__delattr__` that refuse every assignment and an
`__init__` that sets each field through `object.__setattr__`, all compiled from source text when the class is
made (with `__eq__`, `__hash__` and `__repr__`, ~0.4 ms a class: the API's cold start made 38 of them). Both
decorators here make plain dataclasses that type checkers take as frozen
(`dataclass_transform(frozen_default=True)`), so an assignment to a field is refused by mypy (`make check`)
rather than at run time: `record` without `__eq__` and `__repr__` (declarations and the like, which nothing
compares or prints: they compare as objects), `by_value` with the `__eq__`, `__hash__` and `__repr__` of a
frozen dataclass as shared functions (search and filter trees, a route's needs, which tests compare). The
settings stay a frozen dataclass (their tests assign to one).
"""

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, kw_only: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, eq_default=False)
def record(cls: type[T] | None = None, /, *, kw_only: bool = False) -> type[T] | Callable[[type[T]], type[T]]:
    """A dataclass with `__init__` only (`kw_only`: its fields by keyword), frozen for the type checker."""
    make = dataclass(eq=False, repr=False, kw_only=kw_only)
    return make if cls is None else make(cls)


@dataclass_transform(frozen_default=True)
def by_value(cls: type[T], /) -> type[T]:
    """A dataclass compared, hashed and shown by its fields as a frozen one is (by the functions below, shared
    rather than compiled per class), frozen for the type checker."""
    made = dataclass(eq=False, repr=False)(cls)
    made.__eq__ = _equal  # type: ignore[method-assign]
    made.__hash__ = _hash  # type: ignore[method-assign]
    made.__repr__ = _shown  # type: ignore[method-assign]
    return made


def _compared(record: Any) -> tuple[Any, ...]:
    """The values of the fields a dataclass compares, in order."""
    return tuple(getattr(record, item.name) for item in fields(record) if item.compare)


def _equal(self: Any, other: object) -> bool:
    """A dataclass's `__eq__`: the same class and equal compared fields."""
    if self is other:
        return True
    if other.__class__ is self.__class__:
        return _compared(self) == _compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    """A frozen dataclass's `__hash__`: the hash of its compared fields."""
    return hash(_compared(self))


def _shown(self: Any) -> str:
    """A dataclass's `__repr__`: `Name(field=value, ...)`."""
    shown = ", ".join(f"{item.name}={getattr(self, item.name)!r}" for item in fields(self) if item.repr)
    return f"{self.__class__.__qualname__}({shown})"
