"""python_frozen.py: a small program frozen with PyInstaller by tests/python/python.rs, with no hook
of its own: the `verify` package's hook (its `pyinstaller40` entry point) puts the native
library into the bundle, where the package finds it.

    python_frozen BASE_URL APP_ID APP_KEY

Prints whether it runs frozen, where the library was loaded from, the bulletin and the length
of the machine code; exits 0 when the calls succeeded.
"""

from __future__ import annotations

import sys

import verify


def main() -> int:
    url, app_id, app_key = sys.argv[1:4]
    print(f"frozen {getattr(sys, 'frozen', False)}", flush=True)
    print(f"library {verify.library_path()}", flush=True)
    with verify.Client(url, app_id, app_key) as client:
        print(f"bulletin {client.get_bulletin().bulletin}", flush=True)
    print(f"machine code {len(verify.machine_code(app_id))}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
