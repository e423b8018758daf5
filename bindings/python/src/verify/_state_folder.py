"""Where state that outlives the process goes: a folder of your choice, the per-user default
folder, or nowhere. The ``state_folder`` of :class:`verify.Client` (and of the machine code
v2 functions)."""

from __future__ import annotations

import enum
import os
from typing import Optional, Union

from . import _native
from ._deprecated import warn

#: A path: ``str`` or ``pathlib.Path`` (any ``os.PathLike[str]``).
PathLike = Union[str, "os.PathLike[str]"]


class StateFolder(enum.Enum):
    """The choices of ``state_folder`` that are not a path."""

    DEFAULT = "default"
    """The per-user default folder: ``%LOCALAPPDATA%\\verify\\state`` on Windows,
    ``~/Library/Application Support/verify/state`` on macOS, ``$XDG_STATE_HOME/verify`` (or
    ``~/.local/state/verify``) on Linux. Where a frozen program (PyInstaller ``--onefile``)
    keeps its state: not in the temporary folder it runs from."""

    OFF = "off"
    """Nothing is written: no remembered line, no offline verdicts (the client's default)."""


#: What ``state_folder`` takes: a path, :attr:`StateFolder.DEFAULT` or :attr:`StateFolder.OFF`.
StateFolderChoice = Union[PathLike, StateFolder]


def native_folder(choice: Optional[StateFolderChoice], off: StateFolder) -> Optional[bytes]:
    """The folder as the C ABI takes it: the path's bytes, ``b""`` for the default folder, or
    None for ``OFF``. ``off`` is what the previous release's None meant (the client's: OFF;
    the machine functions': DEFAULT); ``None`` and ``""`` still work, with a warning."""
    if choice is None:
        warn("state_folder=None", f"state_folder=verify.StateFolder.{off.name}")
        choice = off
    if isinstance(choice, StateFolder):
        return None if choice is StateFolder.OFF else b""
    path = os.fspath(choice)
    if not isinstance(path, str):
        raise TypeError("state_folder must be a str path, a PathLike of str or a StateFolder")
    if path == "":
        warn('state_folder=""', "state_folder=verify.StateFolder.DEFAULT")
        return b""
    return _native.arg(path, "state_folder")
