"""Finding and loading the native library (libverify.so, verify.dll, libverify.dylib).

The order: the library bundled in this package's folder (the wheels carry it; PyInstaller
collects it there), then the file named by the environment variable ``VERIFY_LIBRARY`` (an
install from the source distribution, or a library of your own build). Both are read once,
at the first import of :mod:`verify`.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from typing import Any, Callable, List, Optional

#: The environment variable naming the native library when the package carries none.
LIBRARY_VARIABLE = "VERIFY_LIBRARY"


def library_name() -> str:
    """The file name of the native library on this system."""
    if sys.platform == "win32":
        return "verify.dll"
    if sys.platform == "darwin":
        return "libverify.dylib"
    return "libverify.so"


def candidates() -> List[str]:
    """Where the library is looked for, in order."""
    found = [os.path.join(os.path.dirname(os.path.abspath(__file__)), library_name())]
    named = os.environ.get(LIBRARY_VARIABLE)
    if named:
        found.append(named)
    return found


#: The callback types use the library's calling convention: stdcall on 32-bit Windows.
STDCALL = sys.platform == "win32" and struct.calcsize("P") == 4


def functype(restype: Any, *argtypes: Any) -> Callable[..., Any]:
    """A C function pointer type in the library's calling convention (``VERIFY_CALL``)."""
    if STDCALL:
        return getattr(ctypes, "WINFUNCTYPE")(restype, *argtypes)  # type: ignore[no-any-return]
    return ctypes.CFUNCTYPE(restype, *argtypes)


def load() -> ctypes.CDLL:
    """Loads the first library found; raises :class:`OSError` saying where it looked."""
    tried = []
    for path in candidates():
        if not os.path.isfile(path):
            tried.append(f"{path} (missing)")
            continue
        try:
            if STDCALL:
                return getattr(ctypes, "WinDLL")(path)  # type: ignore[no-any-return]
            return ctypes.CDLL(path)
        except OSError as error:
            tried.append(f"{path} ({error})")
    hint: Optional[str] = None
    if os.environ.get(LIBRARY_VARIABLE) is None:
        hint = (
            f"this install carries no native library: set {LIBRARY_VARIABLE} to the path of "
            f"{library_name()} (built with `cargo build --release -p verify`)"
        )
    raise OSError(
        "verify: cannot load the native library; tried "
        + "; ".join(tried)
        + (f". {hint}" if hint else "")
    )
