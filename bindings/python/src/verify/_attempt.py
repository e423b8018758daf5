"""The form that does not raise: :func:`attempt` runs a call and gives its value or its
:class:`verify.VerifyError` as an :class:`Attempt`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Generic, Optional, TypeVar, cast

from ._errors import VerifyError

if TYPE_CHECKING:
    from typing_extensions import ParamSpec

    P = ParamSpec("P")

T = TypeVar("T")


@dataclass(frozen=True)
class Attempt(Generic[T]):
    """The outcome of :func:`attempt`: the value, or the error; true when it succeeded."""

    value: Optional[T] = None
    error: Optional[VerifyError] = None

    def __bool__(self) -> bool:
        return self.error is None

    def unwrap(self) -> T:
        """The value, or raises the error."""
        if self.error is not None:
            raise self.error
        return cast(T, self.value)  # the call's value (None where the call gives None)


def attempt(call: "Callable[P, T]", *args: "P.args", **kwargs: "P.kwargs") -> Attempt[T]:
    """Runs ``call(*args, **kwargs)`` and returns its value or its :class:`verify.VerifyError`
    (any subclass) as an :class:`Attempt`, without raising: ``attempt(client.single_login,
    card)``. The arguments are checked against ``call``'s parameters (``ParamSpec``)."""
    try:
        return Attempt(value=call(*args, **kwargs))
    except VerifyError as error:
        return Attempt(error=error)
