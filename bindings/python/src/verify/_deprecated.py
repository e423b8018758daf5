"""Names of the previous release kept for one more: each use warns (``DeprecationWarning``,
shown by default where the caller is ``__main__``, by pytest, and with ``-W default``)."""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


def warn(old: str, new: str) -> None:
    """Warns that ``old`` is deprecated, naming what replaces it (at the caller's caller)."""
    warnings.warn(f"verify: {old} is deprecated; use {new}", DeprecationWarning, stacklevel=3)


def renamed(**names: str) -> Callable[[F], F]:
    """A method whose keyword parameters had other names in the previous release
    (``@renamed(mac="machine_code")``): the old keyword still works, with a warning. The
    method's signature (what a type checker and an IDE see) has the new names only."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            if kwargs:
                for old, new in names.items():
                    if old in kwargs:
                        if new in kwargs:
                            raise TypeError(f"{function.__name__}() got both {old} and {new}")
                        warn(f"{function.__name__}({old}=...)", f"{new}=...")
                        kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return cast(F, call)

    return decorate
