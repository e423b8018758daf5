/*
 * win_registry_read.c: runs a program while HKEY_CURRENT_USER\Software\verify is unreadable,
 * as a user makes it with regedit's Permissions dialog; run by
 * tests/platforms/windows/offline.rs under Wine (whose registry honours a key's DACL, but
 * keeps it only while its wineserver runs: so the key is denied, the program run and the
 * key given back within this one process).
 *
 *   win_registry_read PROGRAM [ARGS...]
 *
 * Sets a protected DACL on the key that denies KEY_READ to Everyone, checks that opening the
 * key to read is refused ("unreadable"), runs PROGRAM with ARGS (no argument may hold a
 * space) and waits for it, then removes the DACL (the key readable again). Exits with the
 * program's exit code, or 90 + a step when a step failed (its error printed).
 */

#include <windows.h>

#include <aclapi.h>
#include <process.h>
#include <stdio.h>

static const wchar_t KEY[] = L"Software\\verify";

static int failed(int step, const char *what, LONG error)
{
    printf("%s failed: %ld\n", what, (long)error);
    fflush(stdout);
    return 90 + step;
}

/* Sets the key's DACL: `acl`, protected, or none (NULL: readable again). */
static LONG set_dacl(PACL acl)
{
    HKEY key = NULL;
    LONG status = RegOpenKeyExW(HKEY_CURRENT_USER, KEY, 0, WRITE_DAC, &key);
    if (status != ERROR_SUCCESS) {
        return status;
    }
    status = (LONG)SetSecurityInfo(key, SE_REGISTRY_KEY,
                                   DACL_SECURITY_INFORMATION |
                                       (acl != NULL ? PROTECTED_DACL_SECURITY_INFORMATION
                                                    : UNPROTECTED_DACL_SECURITY_INFORMATION),
                                   NULL, NULL, acl, NULL);
    RegCloseKey(key);
    return status;
}

int main(int argc, char **argv)
{
    PACL acl = NULL;
    PSID everyone = NULL;
    SID_IDENTIFIER_AUTHORITY world = {SECURITY_WORLD_SID_AUTHORITY};
    EXPLICIT_ACCESSW deny;
    HKEY key = NULL;
    LONG status;
    intptr_t code;

    if (argc < 2) {
        printf("usage: win_registry_read PROGRAM [ARGS...]\n");
        return 2;
    }
    if (!AllocateAndInitializeSid(&world, 1, SECURITY_WORLD_RID, 0, 0, 0, 0, 0, 0, 0, &everyone)) {
        return failed(1, "AllocateAndInitializeSid", (LONG)GetLastError());
    }
    ZeroMemory(&deny, sizeof deny);
    deny.grfAccessPermissions = KEY_READ;
    deny.grfAccessMode = DENY_ACCESS;
    deny.grfInheritance = NO_INHERITANCE;
    deny.Trustee.TrusteeForm = TRUSTEE_IS_SID;
    deny.Trustee.TrusteeType = TRUSTEE_IS_WELL_KNOWN_GROUP;
    deny.Trustee.ptstrName = (LPWSTR)everyone;
    status = (LONG)SetEntriesInAclW(1, &deny, NULL, &acl);
    FreeSid(everyone);
    if (status != ERROR_SUCCESS) {
        return failed(2, "SetEntriesInAclW", status);
    }
    status = set_dacl(acl);
    LocalFree(acl);
    if (status != ERROR_SUCCESS) {
        return failed(3, "denying the key", status);
    }
    status = RegOpenKeyExW(HKEY_CURRENT_USER, KEY, 0, KEY_READ, &key);
    if (status != ERROR_ACCESS_DENIED) {
        if (key != NULL) {
            RegCloseKey(key);
        }
        set_dacl(NULL);
        return failed(4, "the key is still readable: RegOpenKeyExW", status);
    }
    printf("unreadable\n");
    fflush(stdout);
    code = _spawnv(_P_WAIT, argv[1], (const char *const *)&argv[1]);
    status = set_dacl(NULL);
    if (code == -1) {
        return failed(5, "_spawnv", (LONG)errno);
    }
    if (status != ERROR_SUCCESS) {
        return failed(6, "giving the key back", status);
    }
    return (int)code;
}
