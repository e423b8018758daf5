"""py_lifecycle.py: a Python program that loads libverify with ctypes and lets the
interpreter shut down with work in flight (run by tests/c/lifecycle.rs).

    python3 py_lifecycle.py WORK HOW BASE_URL APP_ID APP_KEY CARD STATE_DIR

WORK is keeper, budget or lookup, as in c_lifecycle.c's exit scenario (the lookup's call
runs on a daemon thread); HOW is return (the script ends) or exit (sys.exit(0)). It prints
"ending" just before; the test requires the interpreter to end within seconds with status 0
and nothing on stderr. libverify.so is found through LD_LIBRARY_PATH.
"""

import ctypes
import socket
import sys
import threading

OK, OFFLINE = 200, 202

lib = ctypes.CDLL("libverify.so")
lib.verify_last_error_message.restype = ctypes.c_char_p
handle = ctypes.c_void_p
failures = []


def check(code, expected, what):
    if code != expected:
        message = lib.verify_last_error_message().decode("utf-8", "replace")
        failures.append(what)
        print(f"FAIL {what}: {code}, expected {expected} ({message})", flush=True)


def main(work, how, base_url, app_id, app_key, card, state_dir):
    options = handle()
    check(lib.verify_client_options_new(ctypes.byref(options)), OK, "options")
    if work == "budget":
        check(lib.verify_client_options_set_state_folder(options, state_dir.encode()), OK, "folder")
        check(lib.verify_client_options_set_offline_grace(options, 3600), OK, "grace")
        check(lib.verify_client_options_set_start_budget(options, 300), OK, "budget")
        check(lib.verify_client_options_set_timeouts(options, 2000, 60000), OK, "timeouts")
    client = handle()
    check(
        lib.verify_client_new_with_options(
            base_url.encode(), app_id.encode(), app_key.encode(), options, ctypes.byref(client)
        ),
        OK,
        "client",
    )
    lib.verify_client_options_free(options)
    reply = handle()
    if work == "keeper":
        check(
            lib.verify_single_login(client, card.encode(), b"PY-LIFECYCLE-MAC", None, ctypes.byref(reply)),
            OK,
            "login",
        )
        keeper_options = handle()
        keeper = handle()
        check(lib.verify_keeper_options_new(ctypes.byref(keeper_options)), OK, "keeper options")
        check(lib.verify_keeper_options_set_interval(keeper_options, 1000), OK, "interval")
        check(
            lib.verify_keeper_start_from_reply(client, reply, keeper_options, ctypes.byref(keeper)),
            OK,
            "keeper",
        )
    elif work == "budget":
        check(
            lib.verify_single_login(client, card.encode(), b"PY-LIFECYCLE-MAC", None, ctypes.byref(reply)),
            OK,
            "first login",
        )
        print("@@ slow", flush=True)
        sys.stdin.readline()
        check(
            lib.verify_single_login(client, card.encode(), b"PY-LIFECYCLE-MAC", None, ctypes.byref(reply)),
            OFFLINE,
            "login held by the server",
        )
    elif work == "lookup":
        # A name server on 127.0.0.1:53 that never answers (the test's namespaces).
        server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        server.bind(("127.0.0.1", 53))
        server.settimeout(10)
        caller = threading.Thread(
            target=lambda: lib.verify_get_bulletin(client, ctypes.byref(handle())), daemon=True
        )
        caller.start()
        try:
            server.recv(512)
        except OSError as err:
            failures.append("query")
            print(f"FAIL no query reached the name server: {err}", flush=True)
    else:
        failures.append("work")
    print(f"RESULT: exit: {len(failures)} failed", flush=True)
    print("ending", flush=True)
    if failures:
        sys.exit(1)
    if how == "exit":
        sys.exit(0)


if __name__ == "__main__":
    if len(sys.argv) != 8:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(*sys.argv[1:])
