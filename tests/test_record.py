"""`filewright.core.record`: the value classes' base keeps what `dataclasses` gave them."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from filewright.core.result import Failure, Result
from filewright.fs.paths import Location
from filewright.policy.rules import Access, Rule
from filewright.read.textread import TextSlice


def location(**changes: object) -> Location:
    here = Path("/w/a.txt")
    loc = Location("a.txt", here, here, Path("/w"), "a.txt", "a.txt", True, False, False)
    return loc.replace(**changes)


def test_equality_repr_and_hash_by_fields() -> None:
    assert location() == location()
    assert location() != location(exists=False)
    assert hash(location()) == hash(location())
    assert len({location(), location(), location(rel="b")}) == 2
    assert repr(Failure("busy", "a")) == "Failure(code='busy', path='a', detail={})"
    assert Result(True, "x") == Result(True, "x", {})
    assert Result(True, "x") != Failure("x")
    assert Result(True, "x").data is not Result(True, "x").data  # a fresh dict each


def test_frozen_fields_cannot_change() -> None:
    loc = location()
    with pytest.raises(AttributeError):
        loc.exists = False  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del loc.rel  # type: ignore[misc]
    with pytest.raises(AttributeError):
        loc.other = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        hash(Result(True, "x"))  # mutable: unhashable, as a dataclass


def test_uncompared_and_unshown_fields() -> None:
    one = Rule("*.py", Access.DENY, origin="a:1")
    assert one == Rule("*.py", Access.DENY, origin="b:2")
    assert hash(one) == hash(Rule("*.py", Access.DENY))
    assert "origin='a:1'" in repr(one)


def test_replace_as_dict_fields_copy_and_pickle() -> None:
    s = TextSlice(["a"], 1, 1, 1)
    t = s.replace(truncated=True)
    assert (s.truncated, t.truncated, t.lines) == (False, True, ["a"])
    with pytest.raises(TypeError):
        s.replace(nope=1)
    assert s.as_dict()["cut_lines"] == [] and list(s.as_dict()) == list(TextSlice._fields)
    loc = location()
    assert copy.copy(loc) == loc == pickle.loads(pickle.dumps(loc))
    assert copy.deepcopy(s) == s


def test_a_class_must_name_its_fields_as_its_slots() -> None:
    from filewright.core.record import Frozen

    with pytest.raises(TypeError):

        class Sorted(Frozen):  # what a sorter of __slots__ would leave
            __slots__ = ("a", "b")
