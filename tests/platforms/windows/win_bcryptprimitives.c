/*
 * win_bcryptprimitives.c: a test-only stand-in for bcryptprimitives.dll under Wine.
 *
 * Rust's standard library imports ProcessPrng from bcryptprimitives.dll, which every Windows
 * since 8 has but Debian's Wine 8 lacks. This DLL exports ProcessPrng and forwards it to
 * advapi32's SystemFunction036 (RtlGenRandom). tests/platforms/windows/wine.rs builds it with mingw-w64 next
 * to the Windows test programs; it is never shipped.
 *
 *   x86_64-w64-mingw32-gcc -shared -O2 -Wall -Wextra -Werror -o bcryptprimitives.dll \
 *       win_bcryptprimitives.c -ladvapi32
 *   (i686: i686-w64-mingw32-gcc ... -Wl,--kill-at, so the export is undecorated)
 */

#include <windows.h>

/* RtlGenRandom; declared here as ntsecapi.h spells it only under a macro. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000u ? 0x10000000u : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
