"""`@frozen`: a frozen dataclass, built without compiling any source text
(and `@mutable`, a plain one built the same way).

For every frozen class, dataclasses compiles six methods from source text
(__init__, __repr__, __eq__, __hash__, __setattr__, __delattr__): 0.3 to 0.5 ms
a class on Python 3.11, and `check` builds some sixty classes at start-up.
Here dataclasses only collects the fields (it compiles nothing when asked for
no methods), and the six methods are closures over the field names that do
what the generated ones do: __init__ takes the same arguments, fills the same
defaults and factories, calls __post_init__ and refuses the same mistakes;
assigning or deleting a field raises FrozenInstanceError (tests/test_frozen.py
holds them to dataclasses' own). In every other respect the class is a
dataclass: fields(), replace(), asdict(), is_dataclass().
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
    return _build(cls, frozen=True)


@dataclass_transform()
def mutable(cls: type[T]) -> type[T]:
    """As @dataclass: fields may be assigned, and instances compare by their
    fields and so do not hash (unless the class defines __hash__ itself)."""
    return _build(cls, frozen=False)


def _build(cls: type[T], frozen: bool) -> type[T]:
    body = dict(cls.__dict__)
    own_hash = body.get("__hash__", dataclasses.MISSING)
    explicit_hash = not (own_hash is dataclasses.MISSING or (own_hash is None and "__eq__" in body))
    # No methods asked for: dataclasses compiles nothing (frozen=False too, as
    # frozen=True compiles __setattr__ and __delattr__; the closures below do
    # their work, and every @frozen base is itself built this way).
    cls = dataclasses.dataclass(init=False, repr=False, eq=False)(cls)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    _refuse_what_dataclasses_would(cls, fields)
    methods: dict[str, Any] = {
        "__init__": _init(fields, getattr(cls, "__post_init__", None) is not None),
        "__repr__": _repr([f.name for f in fields if f.repr]),
        "__eq__": _eq(_values([f.name for f in fields if f.compare])),
    }
    if frozen:
        methods["__setattr__"] = _setattr(cls, frozenset(f.name for f in fields))
        methods["__delattr__"] = _delattr(cls, frozenset(f.name for f in fields))
        methods["__hash__"] = _hash(_values([f.name for f in fields if (f.compare if f.hash is None else f.hash)]))
    for name, method in methods.items():
        if name in body and not (name == "__hash__" and not explicit_hash):
            continue
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    if not frozen and not explicit_hash:
        cls.__hash__ = None  # type: ignore[assignment]  # as dataclasses does for eq without frozen
    return cls


def _refuse_what_dataclasses_would(cls: type, fields: Sequence[dataclasses.Field]) -> None:
    """With init=False dataclasses skips the checks its __init__ would make: make
    them here, at class creation, as @dataclass does (and refuse InitVar, which
    the closures do not pass on)."""
    for f in cls.__dict__.get("__dataclass_fields__", {}).values():
        if isinstance(f.type, dataclasses.InitVar) or (isinstance(f.type, str) and "InitVar" in f.type):
            raise TypeError(f"{cls.__qualname__}.{f.name}: @frozen and @mutable do not take InitVar fields")
    seen_default = False
    for f in fields:
        if not f.init or f.kw_only:
            continue
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        seen_default = seen_default or has_default


def _init(fields: Sequence[dataclasses.Field], post_init: bool) -> Callable[..., None]:
    """__init__ as dataclasses writes it: positional-or-keyword fields in order,
    then keyword-only ones; defaults and factories filled in; a field with
    init=False set from its default; then __post_init__()."""
    missing = dataclasses.MISSING
    params = [f for f in fields if f.init]
    positional = tuple(f.name for f in params if not f.kw_only)
    names = frozenset(f.name for f in params)
    # (name, default, factory) in the order the generated __init__ assigns them
    order = [(f.name, f.default, f.default_factory) for f in fields if f.init or f.default is not missing
             or f.default_factory is not missing]
    required = {f.name for f in params if f.default is missing and f.default_factory is missing}
    setter = object.__setattr__

    def __init__(self, *args, **kwargs) -> None:
        if len(args) > len(positional):
            raise TypeError(f"{type(self).__qualname__}.__init__() takes {len(positional) + 1} positional "
                            f"arguments but {len(args) + 1} were given")
        values = dict(zip(positional, args))
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"{type(self).__qualname__}.__init__() got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{type(self).__qualname__}.__init__() got multiple values for argument {name!r}")
            values[name] = value
        if len(values) < len(required) or not required <= values.keys():
            lacking = [n for n in positional + tuple(sorted(names - set(positional))) if n in required
                       and n not in values]
            raise TypeError(f"{type(self).__qualname__}.__init__() missing {len(lacking)} required "
                            f"argument{'s' if len(lacking) > 1 else ''}: {', '.join(map(repr, lacking))}")
        for name, default, factory in order:
            if name in values:
                setter(self, name, values[name])
            elif factory is not missing:
                setter(self, name, factory())
            else:
                setter(self, name, default)
        if post_init:
            self.__post_init__()

    return __init__


def _setattr(cls: type, names: frozenset[str]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _delattr(cls: type, names: frozenset[str]) -> Callable[[Any, str], None]:
    def __delattr__(self, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


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
