/*
 * win_msvc_link.c: a caller linked the MSVC way, by tests/platforms/windows/exports.rs: compiled to an object
 * without any C runtime, linked by Rust's lld-link against target/windows/<arch>/verify.lib
 * (no mingw import library involved). On x86 the object refers to the stdcall symbols
 * _verify_abi_version@0 and _verify_version@0; the program must import the undecorated
 * names from verify.dll. Its exit status is the ABI version (2), or 100 + it when
 * verify_version() gave NULL.
 */

#include "verify.h"

int VERIFY_CALL start(void)
{
    return (int)verify_abi_version() + (verify_version() != 0 ? 0 : 100);
}
