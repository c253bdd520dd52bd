"""`@frozen`: a frozen dataclass, built at about half the cost of `@dataclass(frozen=True)`.

For every frozen class, dataclasses compiles six methods from source text
(__init__, __repr__, __eq__, __hash__, __setattr__, __delattr__): 0.3 to 0.5 ms
a class on Python 3.11, and `check` builds some fifty classes at start-up.
__repr__, __eq__ and __hash__ depend only on the field names: here they are
closures over the names, made without compiling anything, that return what
the generated methods return (tests/test_frozen.py holds them to dataclasses'
own). In every other respect the class is a frozen dataclass: fields(),
replace(), asdict(), FrozenInstanceError.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar

T = TypeVar("T")

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_options):
        return lambda decorator: decorator


@dataclass_transform(frozen_default=True)
def frozen(cls: type[T]) -> type[T]:
    """As @dataclass(frozen=True): a method the class defines itself is kept,
    and a field hashes when it compares unless its hash= says otherwise."""
    body = dict(cls.__dict__)
    own_hash = body.get("__hash__", dataclasses.MISSING)
    explicit_hash = not (own_hash is dataclasses.MISSING or (own_hash is None and "__eq__" in body))
    cls = dataclasses.dataclass(frozen=True, eq=False, repr=False)(cls)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    methods = {
        "__repr__": _repr([f.name for f in fields if f.repr]),
        "__eq__": _eq(_values([f.name for f in fields if f.compare])),
        "__hash__": _hash(_values([f.name for f in fields if (f.compare if f.hash is None else f.hash)])),
    }
    for name, method in methods.items():
        if name in body and not (name == "__hash__" and not explicit_hash):
            continue
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    return cls


def _values(names: Sequence[str]) -> Callable[[Any], tuple]:
    if len(names) >= 2:
        return attrgetter(*names)  # a tuple of the values
    if names:
        one = names[0]
        return lambda obj: (getattr(obj, one),)
    return lambda obj: ()


def _repr(names: Sequence[str]) -> Callable[[Any], str]:
    @reprlib.recursive_repr()  # "..." for an object inside itself, as dataclasses answers
    def __repr__(self) -> str:
        return self.__class__.__qualname__ + "(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"

    return __repr__


def _eq(values: Callable[[Any], tuple]) -> Callable[[Any, Any], Any]:
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(values: Callable[[Any], tuple]) -> Callable[[Any], int]:
    def __hash__(self) -> int:
        return hash(values(self))

    return __hash__
