"""The enums of verify.h that are not in the code table (generated from the schema into
:mod:`verify._generated.enums`), and :func:`known`. Later library versions may add values:
code that reads them accepts an ``int`` it does not know."""

from __future__ import annotations

from ._generated.enums import CodePage as CodePage
from ._generated.enums import ComponentKind as ComponentKind
from ._generated.enums import ComponentState as ComponentState
from ._generated.enums import DiagnosisStepKind as DiagnosisStepKind
from ._generated.enums import EventKind as EventKind
from ._generated.enums import KeeperState as KeeperState
from ._generated.enums import LogLevel as LogLevel
from ._generated.enums import MachineVersion as MachineVersion
from ._generated.enums import Outcome as Outcome
from ._generated.enums import ProxyMode as ProxyMode
from ._generated.enums import SessionKind as SessionKind
from ._generated.enums import Trust as Trust
from ._generated.enums import Verdict as Verdict
from ._generated.enums import VirtualSign as VirtualSign


def known(kind: type, value: int) -> int:
    """``kind(value)`` when the enum knows the value, else the plain ``int``."""
    try:
        return kind(value)  # type: ignore[no-any-return]
    except ValueError:
        return value
