"""PyInstaller's entry point (``pyinstaller40``/``hook-dirs`` in the package metadata): the
folder of this package's hook, so that a program frozen with PyInstaller carries the native
library with no hook of its own."""

from __future__ import annotations

import os
from typing import List


def get_hook_dirs() -> List[str]:
    """The folders PyInstaller reads hooks from."""
    return [os.path.dirname(os.path.abspath(__file__))]
