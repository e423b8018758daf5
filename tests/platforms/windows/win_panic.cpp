/*
 * win_panic.cpp: a panic inside verify.dll is caught at its boundary whatever else the host
 * process has loaded (run by tests/platforms/windows/panic.rs under Wine, x64 and x86, built
 * with mingw-w64 g++ twice: with its C++ runtime and unwinder linked statically, and with
 * them as DLLs, libgcc_s_dw2-1.dll or libgcc_s_seh-1.dll loaded before verify.dll).
 *
 *   win_panic [libgcc-first] [libgcc-after] [throw]
 *
 * libgcc-first loads the mingw unwinder DLL (LIBGCC_DLL: libgcc_s_dw2-1.dll on x86,
 * libgcc_s_seh-1.dll on x64, copied beside the program) before verify.dll; libgcc-after
 * loads it after verify.dll and before the calls; throw makes the host throw and catch C++
 * exceptions of its own around every panic. The program never links to verify.dll: it
 * loads it with LoadLibrary after the steps above, so that the unwinder is there first.
 *
 * Then, three times on the main thread and once on a thread of its own: the export
 * verify_panic_self_test("panic") panics inside the library on purpose and must return
 * VERIFY_ERR_PANIC with a last error that names it; verify_panic_self_test("no") must
 * return VERIFY_ERR_INVALID_ARGUMENT without a panic; verify_abi_version() must still
 * answer. A panic that is not caught ends the process (abort, or an unhandled exception):
 * the test sees no RESULT line then.
 */

#include <windows.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "verify.h"

#if defined(_WIN64)
#define LIBGCC_DLL "libgcc_s_seh-1.dll"
#else
#define LIBGCC_DLL "libgcc_s_dw2-1.dll"
#endif

namespace
{

long checks;
long failures;

void check(bool ok, const char *what, int line)
{
    checks++;
    if (!ok) {
        failures++;
        std::printf("FAIL win_panic.cpp:%d: %s\n", line, what);
        std::fflush(stdout);
    }
}

#define CHECK(cond) check((cond), #cond, __LINE__)

using self_test_fn = int32_t(VERIFY_CALL *)(const char *confirm);
using abi_version_fn = uint32_t(VERIFY_CALL *)(void);
using last_code_fn = int32_t(VERIFY_CALL *)(void);
using last_message_fn = const char *(VERIFY_CALL *)(void);

struct Verify {
    self_test_fn self_test;
    abi_version_fn abi_version;
    last_code_fn last_code;
    last_message_fn last_message;
};

Verify verify;
bool throw_around;

/* A C++ exception of the host's own, thrown and caught: the host's unwinder still works. */
void host_throws(void)
{
    if (!throw_around) {
        return;
    }
    bool caught = false;
    try {
        throw std::runtime_error("the host's own exception");
    } catch (const std::runtime_error &error) {
        caught = std::strcmp(error.what(), "the host's own exception") == 0;
    }
    CHECK(caught);
}

/* One round: a panic on purpose, a refusal, and a call that must still answer. */
void one_round(void)
{
    host_throws();
    CHECK(verify.self_test("panic") == VERIFY_ERR_PANIC);
    CHECK(verify.last_code() == VERIFY_ERR_PANIC);
    const char *message = verify.last_message();
    CHECK(message != nullptr && std::strstr(message, "verify_panic_self_test") != nullptr);
    host_throws();
    CHECK(verify.self_test("no") == VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(verify.self_test(nullptr) == VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(verify.abi_version() == VERIFY_ABI_VERSION);
}

DWORD WINAPI on_a_thread(LPVOID)
{
    one_round();
    return 0;
}

HMODULE load_libgcc(void)
{
    HMODULE libgcc = LoadLibraryA(LIBGCC_DLL);
    CHECK(libgcc != nullptr);
    std::printf("loaded %s: %s\n", LIBGCC_DLL, libgcc != nullptr ? "yes" : "no");
    return libgcc;
}

template <typename T> T function(HMODULE dll, const char *name)
{
    FARPROC address = GetProcAddress(dll, name);
    CHECK(address != nullptr);
    T typed = nullptr;
    static_assert(sizeof typed == sizeof address, "a function pointer");
    std::memcpy(&typed, &address, sizeof typed);
    return typed;
}

} // namespace

int main(int argc, char **argv)
{
    bool libgcc_first = false;
    bool libgcc_after = false;
    for (int i = 1; i < argc; i++) {
        libgcc_first = libgcc_first || std::strcmp(argv[i], "libgcc-first") == 0;
        libgcc_after = libgcc_after || std::strcmp(argv[i], "libgcc-after") == 0;
        throw_around = throw_around || std::strcmp(argv[i], "throw") == 0;
    }
    std::printf("libgcc in the process at start: %s\n",
                GetModuleHandleA(LIBGCC_DLL) != nullptr ? "yes" : "no");
    if (libgcc_first) {
        load_libgcc();
    }
    HMODULE dll = LoadLibraryA("verify.dll");
    CHECK(dll != nullptr);
    if (dll == nullptr) {
        std::printf("LoadLibrary(verify.dll) failed: error %lu\n", GetLastError());
        std::printf("RESULT: %ld checks, %ld failed\n", checks, failures);
        return 1;
    }
    if (libgcc_after) {
        load_libgcc();
    }
    verify.self_test = function<self_test_fn>(dll, "verify_panic_self_test");
    verify.abi_version = function<abi_version_fn>(dll, "verify_abi_version");
    verify.last_code = function<last_code_fn>(dll, "verify_last_error_code");
    verify.last_message = function<last_message_fn>(dll, "verify_last_error_message");
    if (verify.self_test == nullptr || verify.abi_version == nullptr ||
        verify.last_code == nullptr || verify.last_message == nullptr) {
        std::printf("RESULT: %ld checks, %ld failed\n", checks, failures);
        return 1;
    }
    std::printf("libgcc in the process before the panics: %s\n",
                GetModuleHandleA(LIBGCC_DLL) != nullptr ? "yes" : "no");
    for (int i = 0; i < 3; i++) {
        one_round();
    }
    HANDLE thread = CreateThread(nullptr, 0, on_a_thread, nullptr, 0, nullptr);
    CHECK(thread != nullptr);
    if (thread != nullptr) {
        CHECK(WaitForSingleObject(thread, 60000) == WAIT_OBJECT_0);
        CloseHandle(thread);
    }
    std::printf("panics caught: the host lives\n");
    std::printf("RESULT: %ld checks, %ld failed\n", checks, failures);
    std::fflush(stdout);
    return failures == 0 ? 0 : 1;
}
