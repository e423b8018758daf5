/*
 * win_version.c: the Windows version a program sees under Wine, and verify.dll loaded and
 * answering there (run by tests/platforms/windows/imports.rs, x64 and x86). The prefixes of
 * the tests are in Windows 7 mode: the program must see Windows 6.1, build 7601 (SP1).
 *
 *   win_version
 *
 * Prints "windows MAJOR.MINOR build BUILD service pack SP" from RtlGetVersion (ntdll: the
 * true version, whatever the program's manifest says), then checks that the library, linked
 * through its import library and so loaded before main, answers.
 */

#include <windows.h>

#include "win_host.h"

typedef LONG(WINAPI *rtl_get_version_fn)(OSVERSIONINFOW *info);

int main(void)
{
    OSVERSIONINFOW info;
    FARPROC address = GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "RtlGetVersion");
    CHECK(address != NULL);
    memset(&info, 0, sizeof info);
    info.dwOSVersionInfoSize = sizeof info;
    if (address != NULL) {
        rtl_get_version_fn get_version = (rtl_get_version_fn)(void (*)(void))address;
        CHECK_INT(get_version(&info), 0);
    }
    printf("windows %lu.%lu build %lu service pack %ls\n", info.dwMajorVersion, info.dwMinorVersion,
           info.dwBuildNumber, info.szCSDVersion);
    CHECK_INT(verify_abi_version(), VERIFY_ABI_VERSION);
    CHECK(verify_version() != NULL && verify_version()[0] != '\0');
    printf("verify %s\n", verify_version());
    CHECK_INT(verify_panic_self_test("panic"), VERIFY_ERR_PANIC);
    return host_result();
}
