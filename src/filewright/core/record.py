"""Plain value classes: fields in `__slots__`, equality and repr by those fields.

The classes a read builds derive from `Record` (mutable) or `Frozen` (immutable and
hashable) rather than being `dataclasses`: importing `dataclasses` loads `inspect`, `ast`,
`dis` and `tokenize`, which alone cost a `filewright call read` more than 1.5 times a
`python -c "import json"` (issue 32). Each class names its fields in `_fields`, in the
order its `__init__` takes them, makes them its `__slots__` (`__slots__ = _fields`) and
writes that `__init__` out (a `Frozen` one stores its values with `_set`). What a dataclass gave its callers, these give too: `repr` and
`==` over the fields (minus `_unshown` / `_uncompared`), a field-wise hash for `Frozen`,
`replace(**changes)` for `dataclasses.replace`, `as_dict()` for a shallow `asdict`, and
`_fields` for `dataclasses.fields`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self


class Record:
    """A mutable value: its `_fields` are its slots; equal when of one class with equal fields."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _unshown: ClassVar[frozenset[str]] = frozenset()  # left out of repr
    _uncompared: ClassVar[frozenset[str]] = frozenset()  # left out of == and hash
    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # mutable: unhashable

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = cls.__dict__.get("_fields")
        if not isinstance(fields, tuple) or cls.__dict__.get("__slots__") is not fields:
            raise TypeError(f"{cls.__qualname__}: write `_fields = (...)`, `__slots__ = _fields`")

    def _compared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in self._fields if n not in self._uncompared)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._compared() == other._compared()

    def __repr__(self) -> str:
        shown = (f"{n}={getattr(self, n)!r}" for n in self._fields if n not in self._unshown)
        return f"{type(self).__qualname__}({', '.join(shown)})"

    def replace(self, **changes: Any) -> Self:
        """A copy with `changes` (field name -> value); an unknown name is a TypeError."""
        values = {n: getattr(self, n) for n in self._fields}
        values.update(changes)
        return type(self)(**values)

    def as_dict(self) -> dict[str, Any]:
        """Field name -> value (shallow: the values themselves, not copies)."""
        return {n: getattr(self, n) for n in self._fields}


class Frozen(Record):
    """An immutable `Record`: assigning or deleting a field raises AttributeError; hashable."""

    _fields: ClassVar[tuple[str, ...]] = ()
    __slots__ = _fields

    def _set(self, *values: Any) -> None:
        """Store `values` as the fields, in `_fields` order (for `__init__` only)."""
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of {type(self).__qualname__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of {type(self).__qualname__}")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._compared())

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), tuple(getattr(self, n) for n in self._fields))
