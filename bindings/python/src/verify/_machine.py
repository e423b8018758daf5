"""Machine codes: v1 (one OS identity, frozen), v2 (several components, tolerant, kept in the
state folder) with its explanation, and the signs of virtualisation. Native reads only: no
process is spawned (no ``wmic``), on Windows, Linux and macOS alike."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from . import _native
from ._enums import ComponentKind, ComponentState, MachineVersion, Outcome, VirtualSign
from ._failures import check
from ._state_folder import StateFolder, StateFolderChoice, native_folder

_CODE_BUFFER = _native.MACHINE_CODE_LEN + 1  # the hex characters and a NUL


def _folder(state_folder: Optional[StateFolderChoice]) -> Optional[bytes]:
    if state_folder is StateFolder.OFF:
        raise ValueError("machine code v2 keeps its code in a folder: a path or StateFolder.DEFAULT")
    return native_folder(state_folder, StateFolder.DEFAULT)


def machine_code(
    salt: str,
    version: MachineVersion = MachineVersion.V1,
    *,
    state_folder: Optional[StateFolderChoice] = StateFolder.DEFAULT,
) -> str:
    """This machine's code for ``salt`` (one salt per program, such as its AppId): 32
    uppercase hex characters. v1 (the default) is frozen; v2 reads several components and
    keeps its code, sealed, in ``state_folder`` (a path, or ``StateFolder.DEFAULT``: the
    per-user default folder) while enough of them match. A client uses v1 for its AppId
    unless given another (:attr:`verify.Client.machine_code`). Raises
    :class:`verify.VerifyError` (``Code.SYSTEM`` when the identity cannot be read)."""
    out = ctypes.create_string_buffer(_CODE_BUFFER)
    check(
        _native.lib.verify_machine_code_ex(
            _native.arg(salt, "salt"), int(version), _folder(state_folder), out, _CODE_BUFFER
        )
    )
    return _native.text(out.value)


@dataclass(frozen=True)
class Component:
    """One component of a v2 check: its kind, state and weight, never its value."""

    kind: ComponentKind
    state: ComponentState
    weight: int

    @property
    def name(self) -> str:
        """``board_uuid``, ``board_serial``, ``os_install``, ``system_volume``, ``cpu``, ``model``."""
        return _native.text(_native.lib.verify_machine_component_name(int(self.kind)))

    @property
    def state_name(self) -> str:
        """``matches``, ``differs``, ``not_stored``, ``unreadable``, ``placeholder``."""
        return _native.text(_native.lib.verify_machine_state_name(int(self.state)))


@dataclass(frozen=True)
class MachineCheck:
    """Machine code v2 with its explanation ("why did it change"): safe to show to a user
    or send to support (no component's value)."""

    code: str = field(repr=False)
    outcome: Outcome
    score: int
    note: Optional[str]
    components: List[Component]


def machine_check(salt: str, *, state_folder: Optional[StateFolderChoice] = StateFolder.DEFAULT) -> MachineCheck:
    """Machine code v2 for ``salt`` with the outcome (issued, kept, reissued, store
    unreadable) and every component's state: issues, keeps and stores the same code as
    ``machine_code(salt, MachineVersion.V2)``."""
    lib = _native.lib
    out = ctypes.c_void_p()
    check(lib.verify_machine_check_new(_native.arg(salt, "salt"), _folder(state_folder), ctypes.byref(out)))
    handle = out.value
    try:
        code = ctypes.c_char_p()
        check(lib.verify_machine_check_code(handle, ctypes.byref(code)))
        outcome, score = ctypes.c_int32(), ctypes.c_int32()
        check(lib.verify_machine_check_outcome(handle, ctypes.byref(outcome)))
        check(lib.verify_machine_check_score(handle, ctypes.byref(score)))
        note = ctypes.c_char_p()
        has_note = lib.verify_machine_check_note(handle, ctypes.byref(note)) == 0
        count = ctypes.c_size_t()
        check(lib.verify_machine_check_count(handle, ctypes.byref(count)))
        components = []
        for index in range(count.value):
            kind, state, weight = ctypes.c_int32(), ctypes.c_int32(), ctypes.c_int32()
            check(
                lib.verify_machine_check_component(
                    handle, index, ctypes.byref(kind), ctypes.byref(state), ctypes.byref(weight)
                )
            )
            components.append(
                Component(ComponentKind(kind.value), ComponentState(state.value), weight.value)
            )
        return MachineCheck(
            code=_native.text(code.value or b""),
            outcome=Outcome(outcome.value),
            score=score.value,
            note=_native.text(note.value or b"") if has_note else None,
            components=components,
        )
    finally:
        lib.verify_machine_check_free(handle)


@dataclass(frozen=True)
class VirtualReport:
    """Whether this machine looks virtual or containerised, and the signs seen (kind and
    what was seen: a vendor string, a file name; never an identity)."""

    looks_virtual: bool
    signs: List[Tuple[VirtualSign, str]]


def machine_virtual() -> VirtualReport:
    """What this machine shows of virtualisation (CPUID's hypervisor bit, firmware strings,
    container markers). It only reports; the program decides what it means."""
    lib = _native.lib
    out = ctypes.c_void_p()
    check(lib.verify_machine_virtual_new(ctypes.byref(out)))
    handle = out.value
    try:
        looks = ctypes.c_int32()
        check(lib.verify_machine_virtual_looks_virtual(handle, ctypes.byref(looks)))
        count = ctypes.c_size_t()
        check(lib.verify_machine_virtual_count(handle, ctypes.byref(count)))
        signs = []
        for index in range(count.value):
            kind, detail = ctypes.c_int32(), ctypes.c_char_p()
            check(lib.verify_machine_virtual_sign(handle, index, ctypes.byref(kind), ctypes.byref(detail)))
            signs.append((VirtualSign(kind.value), _native.text(detail.value or b"")))
        return VirtualReport(looks.value != 0, signs)
    finally:
        lib.verify_machine_virtual_free(handle)
