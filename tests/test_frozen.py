"""@frozen classes answer repr, ==, != and hash exactly as @dataclass(frozen=True)
would: each of gpudoctor's @frozen classes is held to a twin that dataclasses
builds from the same fields, on instances with many kinds of values."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gpudoctor
from gpudoctor.frozen import frozen, mutable


def _dataclasses_defined_in_gpudoctor() -> list[type]:
    found = {}
    for info in pkgutil.walk_packages(gpudoctor.__path__, "gpudoctor."):
        if ".scripts." in info.name or ".runner." in info.name or ".target." in info.name:
            continue  # scripts run by the target interpreter
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[k] for k in sorted(found)]


def _frozen_classes() -> list[type]:
    return [c for c in _dataclasses_defined_in_gpudoctor()
            if getattr(c.__setattr__, "__module__", "") == "gpudoctor.frozen"]  # @frozen, not @mutable


CLASSES = _frozen_classes()


def test_the_classes_check_builds_are_frozen_ones():  # the comparisons below must not run on nothing
    names = {f"{c.__module__}.{c.__qualname__}" for c in CLASSES}
    assert {"gpudoctor.snapshot.Snapshot", "gpudoctor.findings.Finding",
            "gpudoctor.matrices.records.torch.TorchBuild", "gpudoctor.probes.target.TargetInfo"} <= names


def _twin(cls: type) -> type:
    """The class dataclasses itself builds from the same fields."""
    spec = [(f.name, f.type, dataclasses.field(repr=f.repr, compare=f.compare, hash=f.hash))
            for f in dataclasses.fields(cls)]
    return dataclasses.make_dataclass(cls.__name__, spec, frozen=True)


def _make(cls: type, values: list) -> object:
    obj = object.__new__(cls)
    for f, value in zip(dataclasses.fields(cls), values):
        object.__setattr__(obj, f.name, value)
    return obj


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True), st.text(max_size=3),
                   st.tuples(st.integers(0, 2), st.text(max_size=2)))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__qualname__)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(data=st.data())
def test_repr_eq_hash_are_what_dataclasses_generates(cls, data):
    twin = _twin(cls)
    n = len(dataclasses.fields(cls))
    a = _make(cls, data.draw(st.lists(VALUES, min_size=n, max_size=n)))
    b = _make(cls, data.draw(st.lists(VALUES, min_size=n, max_size=n)))
    a_again = _make(cls, [getattr(a, f.name) for f in dataclasses.fields(cls)])
    assert cls.__repr__(a) == twin.__repr__(a)
    for x, y in ((a, b), (a, a_again), (a, a), (a, object()), (a, 1)):
        assert cls.__eq__(x, y) == twin.__eq__(x, y)
    try:
        expected = twin.__hash__(a)
    except TypeError:  # an unhashable value
        with pytest.raises(TypeError):
            cls.__hash__(a)
    else:
        assert cls.__hash__(a) == expected


def test_a_frozen_class_is_still_a_frozen_dataclass():
    @frozen
    class Point:
        """A point."""

        x: int
        y: int = 0
        label: str = dataclasses.field(default="", compare=False)

    p = Point(1)
    assert dataclasses.is_dataclass(p) and dataclasses.replace(p, y=2) == Point(1, 2)
    assert Point(1, 0, "a") == Point(1, 0, "b") and hash(Point(1, 0, "a")) == hash(Point(1, 0, "b"))
    assert repr(p) == "test_a_frozen_class_is_still_a_frozen_dataclass.<locals>.Point(x=1, y=0, label='')"
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2  # type: ignore[misc]


def test_methods_a_class_defines_itself_are_kept_as_dataclass_keeps_them():
    @frozen
    class Own:
        """Its own equality; its hash then comes from the fields, as dataclasses does."""

        x: int

        def __eq__(self, other):
            return True

        def __repr__(self):
            return "own"

    assert Own(1) == Own(2) and repr(Own(1)) == "own" and hash(Own(1)) == hash((1,))


def test_repr_of_an_object_inside_itself():
    @frozen
    class Box:
        """Holds anything."""

        items: list

    box = Box([])
    box.items.append(box)
    assert repr(box) == "test_repr_of_an_object_inside_itself.<locals>.Box(items=[...])"


def _pair(**field_options):
    """A @frozen class and its dataclasses twin with the same fields."""
    def body():
        return {"__annotations__": {"a": int, "b": list, "c": str, "d": int},
                "b": dataclasses.field(default_factory=list), "c": "c",
                "d": dataclasses.field(default=4, kw_only=True), "__doc__": "x", **field_options}
    ours = frozen(type("Pair", (), body()))
    twin = dataclasses.dataclass(frozen=True)(type("Pair", (), body()))
    return ours, twin


CALLS = [((1,), {}), ((1, [2]), {}), ((1, [2], "z"), {}), ((), {"a": 1, "d": 5}), ((1,), {"c": "y", "d": 0}),
         ((), {}), ((1, [], "c", 4), {}), ((1,), {"a": 2}), ((1,), {"e": 0}), ((), {"b": []})]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_init_accepts_and_refuses_what_the_generated_one_does(args, kwargs):
    ours, twin = _pair()
    try:
        expected = twin(*args, **kwargs)
    except TypeError:
        with pytest.raises(TypeError):
            ours(*args, **kwargs)
    else:
        got = ours(*args, **kwargs)
        assert [getattr(got, f.name) for f in dataclasses.fields(ours)] == \
               [getattr(expected, f.name) for f in dataclasses.fields(twin)]


def test_factories_run_per_instance_and_post_init_runs_after_the_fields_are_set():
    seen = []
    ours, _ = _pair(__post_init__=lambda self: seen.append((self.a, self.d)))
    first, second = ours(1), ours(2, d=7)
    assert first.b == [] and first.b is not second.b and seen == [(1, 4), (2, 7)]


def test_fields_cannot_be_assigned_or_deleted_but_a_subclass_may_add_attributes():
    ours, _ = _pair()
    obj = ours(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        obj.a = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        del obj.a
    with pytest.raises(dataclasses.FrozenInstanceError):
        obj.other = 1  # the class itself is frozen throughout, as dataclasses makes it

    class Loose(ours):
        pass

    loose = Loose(1)
    loose.other = 1
    assert loose.other == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        loose.a = 3


def test_a_frozen_subclass_extends_its_frozen_base():
    @frozen
    class Base:
        """A base."""

        x: int

    @frozen
    class Child(Base):
        """A child."""

        y: int = 2

    assert Child(1) == Child(1, 2) and dataclasses.replace(Child(1), y=3).y == 3
    assert [f.name for f in dataclasses.fields(Child)] == ["x", "y"]



def test_every_dataclass_has_its_own_docstring():
    # A dataclass without a docstring gets one built at class creation from
    # inspect.signature(cls), a fraction of a millisecond to more than one per
    # class, paid on every import and so at every start of the CLI.
    classes = _dataclasses_defined_in_gpudoctor()
    assert len(classes) > 50  # the walk found the package's dataclasses, not nothing
    missing = [f"{c.__module__}.{c.__qualname__}" for c in classes
               if not c.__dict__.get("__doc__") or c.__dict__["__doc__"].startswith(c.__name__ + "(")]
    assert missing == []


def test_a_mutable_class_is_what_dataclass_builds():
    def body():
        return {"__annotations__": {"a": int, "b": list}, "b": dataclasses.field(default_factory=list),
                "__doc__": "x"}

    ours = mutable(type("Plain", (), body()))
    twin = dataclasses.dataclass(type("Plain", (), body()))
    for args in ((1,), (1, [2])):
        got, expected = ours(*args), twin(*args)
        assert (got.a, got.b) == (expected.a, expected.b) and repr(got) == repr(expected)
    obj = ours(1)
    obj.a = 5  # fields may be assigned
    assert obj == ours(5) and obj != ours(6) and obj.__eq__(twin(5)) is NotImplemented
    assert ours.__hash__ is None and twin.__hash__ is None
    with pytest.raises(TypeError):
        hash(obj)
    with pytest.raises(TypeError):
        ours()


def test_class_definitions_dataclass_refuses_are_refused_when_the_class_is_made():
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        frozen(type("Bad", (), {"__annotations__": {"a": int, "b": int}, "a": 1, "__doc__": "x"}))
    with pytest.raises(TypeError, match="InitVar"):
        frozen(type("Bad", (), {"__annotations__": {"a": dataclasses.InitVar[int]}, "__doc__": "x"}))
    # a keyword-only field without a default may follow one with a default, as in dataclasses
    ok = frozen(type("Ok", (), {"__annotations__": {"a": int, "b": int}, "a": 1,
                                "b": dataclasses.field(kw_only=True), "__doc__": "x"}))
    assert ok(b=2) == ok(1, b=2)
