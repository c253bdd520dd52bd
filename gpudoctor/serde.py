"""Dataclass <-> JSON-ready dict, closed-world.

`to_data` turns frozen dataclasses (and tuples, enums) into plain JSON values.
`from_data` rebuilds them from type hints: unknown keys and wrong types raise
`DataError` naming the path ("snapshot.gpus[0].name"), missing keys take the
field default (a fact nobody recorded stays unknown).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

T = TypeVar("T")


class DataError(ValueError):
    """Input data does not match the expected shape."""


def to_data(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_data(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                if not (f.metadata.get("omit_empty") and not getattr(obj, f.name))}
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, (list, tuple)):
        return [to_data(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_data(v) for k, v in obj.items()}
    return obj


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = get_type_hints(cls)
    return _HINTS[cls]


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


class _Bad(Exception):
    """A conversion failure below the top: `rel` is the path under the caller."""

    def __init__(self, rel: str, msg: str) -> None:
        self.rel, self.msg = rel, msg


def from_data(tp: Any, data: Any, path: str = "$") -> Any:
    try:
        return _converter(tp)(data)
    except _Bad as bad:
        raise DataError(f"{path}{bad.rel}: {bad.msg}") from None


Convert = Callable[[Any], Any]


@functools.lru_cache(maxsize=None)
def _converter(tp: Any) -> Convert:
    """A function that checks and converts data for type `tp`, built once per
    type (matrix files hold thousands of rows of the same few types)."""
    origin = get_origin(tp)
    if tp is Any or isinstance(tp, TypeVar):
        return lambda data: data
    if origin in (Union, types.UnionType):
        return _union(tp)
    if origin is tuple:
        return _tuple(get_args(tp))
    if origin is dict:
        kt, vt = map(_converter, get_args(tp))

        def convert_dict(data: Any) -> Any:
            if not isinstance(data, dict):
                raise _Bad("", f"expected an object, got {type(data).__name__}")
            return {kt(k): _at(f".{k}", vt, v) for k, v in data.items()}
        return convert_dict
    if origin is typing.Literal:
        allowed = get_args(tp)

        def convert_literal(data: Any) -> Any:
            if data not in allowed:
                raise _Bad("", f"{data!r} is not one of {list(allowed)}")
            return data
        return convert_literal
    if origin is not None and dataclasses.is_dataclass(origin):
        # A generic dataclass such as Fact[str]: substitute its type variable.
        return _dataclass(origin, tuple(zip(origin.__parameters__, get_args(tp))))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp, ())
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        def convert_enum(data: Any) -> Any:
            try:
                return tp(data)
            except ValueError:
                raise _Bad("", f"{data!r} is not one of {[m.value for m in tp]}") from None
        return convert_enum
    if tp is float:
        def convert_float(data: Any) -> Any:
            if isinstance(data, bool) or not isinstance(data, (int, float)):
                raise _Bad("", f"expected a number, got {type(data).__name__}")
            return float(data)
        return convert_float
    if tp is int:
        def convert_int(data: Any) -> Any:
            if isinstance(data, bool) or not isinstance(data, int):
                raise _Bad("", f"expected an integer, got {type(data).__name__}")
            return data
        return convert_int
    if tp in (str, bool):
        def convert_plain(data: Any) -> Any:
            if not isinstance(data, tp):
                raise _Bad("", f"expected {tp.__name__}, got {type(data).__name__}")
            return data
        return convert_plain

    def unsupported(data: Any) -> Any:
        raise _Bad("", f"unsupported type {_type_name(tp)}")
    return unsupported


def _at(rel: str, convert: Convert, data: Any) -> Any:
    try:
        return convert(data)
    except _Bad as bad:
        raise _Bad(rel + bad.rel, bad.msg) from None


def _union(tp: Any) -> Convert:
    args = get_args(tp)
    nullable = type(None) in args
    options = [_converter(a) for a in args if a is not type(None)]

    def convert_union(data: Any) -> Any:
        if data is None and nullable:
            return None
        errors = []
        for convert in options:
            try:
                return convert(data)
            except _Bad as bad:
                errors.append(bad)
        if len(errors) == 1:
            raise errors[0]
        raise _Bad("", f"does not match {_type_name(tp)}")
    return convert_union


def _tuple(args: tuple[Any, ...]) -> Convert:
    if len(args) == 2 and args[1] is Ellipsis:
        item = _converter(args[0])

        def convert_seq(data: Any) -> Any:
            if not isinstance(data, (list, tuple)):
                raise _Bad("", f"expected a list, got {type(data).__name__}")
            out = []
            for i, v in enumerate(data):
                try:
                    out.append(item(v))
                except _Bad as bad:  # the path is spelt out only for an error
                    raise _Bad(f"[{i}]{bad.rel}", bad.msg) from None
            return tuple(out)
        return convert_seq
    items = [_converter(a) for a in args]

    def convert_fixed(data: Any) -> Any:
        if not isinstance(data, (list, tuple)):
            raise _Bad("", f"expected a list, got {type(data).__name__}")
        if len(items) != len(data):
            raise _Bad("", f"expected {len(items)} items, got {len(data)}")
        return tuple(_at(f"[{i}]", c, v) for i, (c, v) in enumerate(zip(items, data)))
    return convert_fixed


def _dataclass(cls: type, typevars: tuple[tuple[Any, Any], ...]) -> Convert:
    hints = _hints(cls)
    tv = dict(typevars)
    fields = {}
    required = []
    for f in dataclasses.fields(cls):
        ftype = hints[f.name]
        ftype = tv.get(ftype, Any) if isinstance(ftype, TypeVar) else (_substitute(ftype, tv) if tv else ftype)
        fields[f.name] = ftype
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    converters: dict[str, Convert] = {}

    def convert_dataclass(data: Any) -> Any:
        if not isinstance(data, dict):
            raise _Bad("", f"expected an object, got {type(data).__name__}")
        unknown = [k for k in data if k not in fields]
        if unknown:
            raise _Bad("", f"unknown key {sorted(unknown)[0]!r}")
        for name in required:
            if name not in data:
                raise _Bad("", f"missing key {name!r}")
        if not converters:  # built on first use: a field's type may be this class itself
            converters.update({name: _converter(t) for name, t in fields.items()})
        values = {}
        for k, v in data.items():
            try:
                values[k] = converters[k](v)
            except _Bad as bad:  # the path is spelt out only for an error
                raise _Bad(f".{k}{bad.rel}", bad.msg) from None
        return cls(**values)
    return convert_dataclass


def _substitute(tp: Any, typevars: dict[Any, Any]) -> Any:
    if isinstance(tp, TypeVar):
        return typevars.get(tp, Any)
    args = get_args(tp)
    if not args:
        return tp
    new = tuple(_substitute(a, typevars) for a in args)
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return Union[new]  # noqa: UP007 - rebuilt dynamically
    return tp.copy_with(new) if hasattr(tp, "copy_with") else origin[new]
