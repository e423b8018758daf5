/*
 * win_panic_msvc.c: a panic inside verify.dll caught in a host built the MSVC way (run by
 * tests/platforms/windows/panic.rs under Wine, x64 and x86): compiled to an object without
 * any C runtime or unwinder of its own, linked by Rust's lld-link against verify.lib and
 * kernel32, as a Visual C++, VB6 or 易语言 program has no libgcc of its own.
 *
 * Built twice. Without LIBGCC_FIRST the program imports verify.dll through verify.lib (the
 * loader maps it before start). With LIBGCC_FIRST it first loads the mingw unwinder DLL a
 * plug-in of such a program may bring (LIBGCC_DLL, copied beside it), then verify.dll with
 * LoadLibraryA.
 *
 * Each of three rounds: verify_panic_self_test("panic") must return VERIFY_ERR_PANIC, the
 * last error code must say so, verify_panic_self_test("no") must return
 * VERIFY_ERR_INVALID_ARGUMENT; then verify_abi_version() must answer. The exit status is 0
 * when all of it held, else the step that failed (10 + round: the panic's code, 20 + round:
 * the last error, 30 + round: the refusal, 40: the ABI version, 50: a DLL that does not
 * load, 51: a function not found). A panic that is not caught ends the process otherwise.
 */

#include <windows.h>

#include "verify.h"

#if defined(_WIN64)
#define LIBGCC_DLL "libgcc_s_seh-1.dll"
#else
#define LIBGCC_DLL "libgcc_s_dw2-1.dll"
#endif

typedef int32_t(VERIFY_CALL *self_test_fn)(const char *confirm);
typedef int32_t(VERIFY_CALL *last_code_fn)(void);
typedef uint32_t(VERIFY_CALL *abi_version_fn)(void);

int VERIFY_CALL start(void)
{
#if defined(LIBGCC_FIRST)
    if (LoadLibraryA(LIBGCC_DLL) == NULL) {
        return 50;
    }
    HMODULE dll = LoadLibraryA("verify.dll");
    if (dll == NULL) {
        return 50;
    }
    FARPROC self_test_at = GetProcAddress(dll, "verify_panic_self_test");
    FARPROC last_code_at = GetProcAddress(dll, "verify_last_error_code");
    FARPROC abi_version_at = GetProcAddress(dll, "verify_abi_version");
    if (self_test_at == NULL || last_code_at == NULL || abi_version_at == NULL) {
        return 51;
    }
    self_test_fn self_test = (self_test_fn)(void (*)(void))self_test_at;
    last_code_fn last_code = (last_code_fn)(void (*)(void))last_code_at;
    abi_version_fn abi_version = (abi_version_fn)(void (*)(void))abi_version_at;
#else
    self_test_fn self_test = verify_panic_self_test;
    last_code_fn last_code = verify_last_error_code;
    abi_version_fn abi_version = verify_abi_version;
#endif
    for (int round = 0; round < 3; round++) {
        if (self_test("panic") != VERIFY_ERR_PANIC) {
            return 10 + round;
        }
        if (last_code() != VERIFY_ERR_PANIC) {
            return 20 + round;
        }
        if (self_test("no") != VERIFY_ERR_INVALID_ARGUMENT) {
            return 30 + round;
        }
    }
    return abi_version() == VERIFY_ABI_VERSION ? 0 : 40;
}
