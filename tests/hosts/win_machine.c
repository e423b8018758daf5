/*
 * win_machine.c: the Windows machine code (MachineGuid from the registry), run by
 * tests/windows.rs under Wine. Prints "machine_code SALT CODE" for each salt given, after
 * checking that the code is 32 uppercase hex digits and the same on a second call.
 *
 *   win_machine SALT...
 */

#include "win_host.h"

static int is_upper_hex(const char *code)
{
    size_t i;
    if (strlen(code) != 32) {
        return 0;
    }
    for (i = 0; i < 32; i++) {
        char c = code[i];
        if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'))) {
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    int i;
    if (argc < 2) {
        fprintf(stderr, "usage: %s SALT...\n", argv[0]);
        return 2;
    }
    for (i = 1; i < argc; i++) {
        char first[33] = "";
        char second[33] = "";
        CHECK_INT(verify_machine_code(argv[i], first, sizeof first), VERIFY_OK);
        CHECK_INT(verify_machine_code(argv[i], second, sizeof second), VERIFY_OK);
        CHECK(is_upper_hex(first));
        CHECK(strcmp(first, second) == 0);
        printf("machine_code %s %s\n", argv[i], first);
    }
    return host_result();
}
