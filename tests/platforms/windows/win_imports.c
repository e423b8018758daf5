/*
 * win_imports.c: every function verify.dll imports is declared by mingw-w64's headers for
 * Windows 7 SP1 (_WIN32_WINNT 0x0601), so that each exists there. Compiled, never run, by
 * tests/platforms/windows/imports.rs, with -fsyntax-only and implicit declarations as errors:
 * the test writes imports.inc beside this file, one line IMPORT(name) per function the DLL
 * imports (those the headers do not declare at all are judged by the test's own table), and
 * the compiler names each function the headers hide from Windows 7 ("'X' undeclared").
 * The headers do not guard every newer function (WaitOnAddress, for one, is declared
 * whatever _WIN32_WINNT says): the test's deny list covers those.
 */

#define _WIN32_WINNT 0x0601
#define WINVER 0x0601
#define NTDDI_VERSION 0x06010100

/* winsock2.h before windows.h */
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>

#include <bcrypt.h>
#include <errno.h>
#include <math.h>
#include <ntsecapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tlhelp32.h>
#include <wincrypt.h>
#include <winternl.h>

/* The address of each: a function, or data such as msvcrt's _iob. */
#define IMPORT(name) (void)&name;

int main(void)
{
#include "imports.inc"
    return 0;
}
