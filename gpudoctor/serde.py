"""Dataclass <-> JSON-ready dict, closed-world.

`to_data` turns frozen dataclasses (and tuples, enums) into plain JSON values.
`from_data` rebuilds them from type hints: unknown keys and wrong types raise
`DataError` naming the path ("snapshot.gpus[0].name"), missing keys take the
field default (a fact nobody recorded stays unknown).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
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


def from_data(tp: Any, data: Any, path: str = "$") -> Any:
    origin = get_origin(tp)
    if tp is Any:
        return data
    if origin in (Union, types.UnionType):
        args = get_args(tp)
        if data is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return from_data(arg, data, path)
            except DataError as exc:
                errors.append(str(exc))
        raise DataError(errors[0] if len(errors) == 1 else f"{path}: does not match {_type_name(tp)}")
    if origin is tuple:
        args = get_args(tp)
        if not isinstance(data, (list, tuple)):
            raise DataError(f"{path}: expected a list, got {type(data).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_data(args[0], v, f"{path}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise DataError(f"{path}: expected {len(args)} items, got {len(data)}")
        return tuple(from_data(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, data)))
    if origin is dict:
        kt, vt = get_args(tp)
        if not isinstance(data, dict):
            raise DataError(f"{path}: expected an object, got {type(data).__name__}")
        return {from_data(kt, k, path): from_data(vt, v, f"{path}.{k}") for k, v in data.items()}
    if origin is typing.Literal:
        if data not in get_args(tp):
            raise DataError(f"{path}: {data!r} is not one of {list(get_args(tp))}")
        return data
    if origin is not None and dataclasses.is_dataclass(origin):
        # A generic dataclass such as Fact[str]: substitute its type variable.
        return _dataclass_from(origin, data, path, dict(zip(origin.__parameters__, get_args(tp))))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_from(tp, data, path, {})
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except ValueError:
            raise DataError(f"{path}: {data!r} is not one of {[m.value for m in tp]}") from None
    if tp is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise DataError(f"{path}: expected a number, got {type(data).__name__}")
        return float(data)
    if tp is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise DataError(f"{path}: expected an integer, got {type(data).__name__}")
        return data
    if tp in (str, bool):
        if not isinstance(data, tp):
            raise DataError(f"{path}: expected {tp.__name__}, got {type(data).__name__}")
        return data
    if isinstance(tp, TypeVar):
        return data
    raise DataError(f"{path}: unsupported type {_type_name(tp)}")


def _dataclass_from(cls: type, data: Any, path: str, typevars: dict[Any, Any]) -> Any:
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected an object, got {type(data).__name__}")
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise DataError(f"{path}: unknown key {unknown[0]!r}")
    kwargs = {}
    for name, f in fields.items():
        if name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise DataError(f"{path}: missing key {name!r}")
            continue
        ftype = hints[name]
        if isinstance(ftype, TypeVar):
            ftype = typevars.get(ftype, Any)
        elif typevars:
            ftype = _substitute(ftype, typevars)
        kwargs[name] = from_data(ftype, data[name], f"{path}.{name}")
    return cls(**kwargs)


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
