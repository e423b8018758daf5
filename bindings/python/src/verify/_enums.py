"""The enums of verify.h that are not in the code table, generated from the schema into
:mod:`verify._generated.enums`. An open one (a later library may add values) takes a value
this version does not name as a member of its own, ``UNKNOWN_<number>``: what the library
gives is always of its enum's type."""

from __future__ import annotations

from ._generated.enums import CodePage as CodePage
from ._generated.enums import ComponentKind as ComponentKind
from ._generated.enums import ComponentState as ComponentState
from ._generated.enums import DiagnosisActor as DiagnosisActor
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
