/*
 * win_machine.c: the Windows machine code, run by tests/platforms/windows/machine.rs under Wine.
 *
 *   win_machine SALT...            v1 (MachineGuid from the registry): prints
 *                                  "machine_code SALT CODE" for each salt given, after checking
 *                                  that the code is 32 uppercase hex digits and the same on a
 *                                  second call
 *   win_machine v2 SALT FOLDER     v2 kept in FOLDER: prints "v2-code CODE", "v2-outcome N",
 *                                  "component NAME STATE" for each component (never a value),
 *                                  "virtual N" and "sign KIND DETAIL" for each sign
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

static int v2(const char *salt, const char *folder)
{
    char code[VERIFY_MACHINE_CODE_LEN + 1] = "";
    verify_machine_check *check = NULL;
    verify_machine_virtual *report = NULL;
    const char *text = NULL;
    int32_t outcome = 0, kind = 0, state = 0, looks = -1;
    size_t count = 0, i;

    CHECK_INT(verify_machine_check_new(salt, folder, &check), VERIFY_OK);
    CHECK_INT(verify_machine_check_code(check, &text), 0);
    CHECK(text != NULL && is_upper_hex(text));
    CHECK_INT(verify_machine_check_outcome(check, &outcome), 0);
    CHECK_INT(verify_machine_code_ex(salt, VERIFY_MACHINE_V2, folder, code, sizeof code),
              VERIFY_OK);
    CHECK(text != NULL && strcmp(code, text) == 0);
    printf("v2-code %s\nv2-outcome %d\n", code, (int)outcome);
    CHECK_INT(verify_machine_check_count(check, &count), 0);
    for (i = 0; i < count; i++) {
        CHECK_INT(verify_machine_check_component(check, i, &kind, &state, NULL), 0);
        printf("component %s %s\n", verify_machine_component_name(kind),
               verify_machine_state_name(state));
    }
    verify_machine_check_free(check);
    CHECK_INT(verify_machine_virtual_new(&report), VERIFY_OK);
    CHECK_INT(verify_machine_virtual_looks_virtual(report, &looks), 0);
    CHECK_INT(verify_machine_virtual_count(report, &count), 0);
    printf("virtual %d\n", (int)looks);
    for (i = 0; i < count; i++) {
        CHECK_INT(verify_machine_virtual_sign(report, i, &kind, &text), 0);
        printf("sign %d %s\n", (int)kind, text);
    }
    verify_machine_virtual_free(report);
    return host_result();
}

int main(int argc, char **argv)
{
    int i;
    if (argc == 4 && strcmp(argv[1], "v2") == 0) {
        return v2(argv[2], argv[3]);
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s SALT... | %s v2 SALT FOLDER\n", argv[0], argv[0]);
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
