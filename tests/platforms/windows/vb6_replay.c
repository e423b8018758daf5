/*
 * vb6_replay.c: bindings/vb6/Example.bas replayed call for call under 32-bit Wine, through the
 * Declares of bindings/vb6/verify.bas (vb6_decl.h, made by tests/platforms/windows/easy_vb6.rs
 * from that file: __stdcall, Long int32_t, ByRef a pointer, Currency the 64-bit integer it is,
 * a ByVal String the char * of its ANSI copy, vbNullString NULL; the Consts and Enums as
 * #defines). Each procedure of the example is a function here with the same calls in the same
 * order (the test compares the two lists); MsgBox and Debug.Print print.
 *
 *   vb6_replay BASE_URL MIRROR_URL APP_ID APP_KEY STATE_FOLDER CARD BANNED_CARD USERNAME PASSWORD
 */

#include <stdio.h>
#include <string.h>

#include "vb6_decl.h"

static long checks, failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failed++;                                                                              \
            printf("FAIL line %d: %s\n", __LINE__, #cond);                                         \
        }                                                                                          \
    } while (0)

/* VerifyText */
static const char *text_at(int32_t p)
{
    return p == 0 ? "" : (const char *)(uintptr_t)p;
}

/* the module's Private variables */
static int32_t client;
static char machine[64];
static int32_t keeper;

static char text_buffer[8][512];
static char *text_arg(int slot, const char *value)
{
    snprintf(text_buffer[slot], sizeof text_buffer[slot], "%s", value);
    return text_buffer[slot];
}

/* VerifyStart */
static int start(const char *base_url, const char *mirror, const char *app_id, const char *app_key,
                 const char *state_folder)
{
    int32_t options = 0, code, check = 0, p = 0, outcome = 0;
    const char *certificate = "";
    const char *proxy = "";

    verify_set_code_page(VERIFY_CODE_PAGE_SYSTEM);
    if (verify_abi_version() != VERIFY_ABI_VERSION_H) {
        printf("message: wrong verify.dll\n");
        return 0;
    }
    verify_client_options_new(&options);
    verify_client_options_add_mirror(options, text_arg(0, mirror));
    if (certificate[0] != '\0') {
        verify_client_options_add_root_file(options, text_arg(0, certificate));
    }
    if (proxy[0] != '\0') {
        verify_client_options_set_proxy(options, VERIFY_PROXY_URL, text_arg(0, proxy));
    }
    verify_client_options_set_state_folder(options, text_arg(0, state_folder));
    verify_client_options_set_offline_grace(options, 259200);
    code = verify_client_new_with_options(text_arg(0, base_url), text_arg(1, app_id),
                                          text_arg(2, app_key), options, &client);
    verify_client_options_free(options);
    if (code != VERIFY_OK) {
        printf("message: %s\n", text_at(verify_code_user_message(code, NULL)));
        printf("debug: %d %s\n", code, text_at(verify_last_error_message()));
        return 0;
    }
    if (verify_machine_check_new(text_arg(0, "10001"), NULL, &check) == VERIFY_OK) {
        verify_machine_check_code(check, &p);
        snprintf(machine, sizeof machine, "%s", text_at(p));
        verify_machine_check_outcome(check, &outcome);
        if (outcome == VERIFY_MACHINE_REISSUED) {
            printf("debug: a new machine code\n");
        }
        verify_machine_check_free(check);
    } else {
        printf("debug: %s\n", text_at(verify_last_error_message()));
    }
    CHECK(strlen(machine) == 32);
    return 1;
}

/* ShowResult */
static int show_result(int32_t code, int32_t reply)
{
    int32_t p = 0, reason = 0;
    int64_t confirmed_at = 0, grace_end = 0;
    char remark[256] = "";

    if (reply == 0) {
        printf("message: %s\n", text_at(verify_code_user_message(code, NULL)));
        printf("debug: %d %s\n", code, text_at(verify_last_error_message()));
        return 0;
    }
    if (code == VERIFY_OFFLINE) {
        verify_reply_offline(reply, &confirmed_at, &grace_end, &reason);
        printf("offline until %lld reason %d\n", (long long)grace_end, reason);
        return 1;
    }
    if (code == VERIFY_OK) {
        if (verify_reply_str(reply, text_arg(0, "/data/expire_at"), &p) == 0) {
            printf("result %d expire_at %s\n", code, text_at(p));
        }
        return 1;
    }
    if (verify_reply_str(reply, text_arg(0, "/data/remark"), &p) == 0) {
        snprintf(remark, sizeof remark, "%s", text_at(p));
    }
    if (code == VERIFY_DISABLED) {
        printf("result %d banned remark %s\n", code, remark);
    } else if (code == VERIFY_MACHINE_CHANGED) {
        printf("result %d old machine remark %s\n", code, remark);
    } else {
        printf("result %d message %s\n", code, text_at(verify_reply_message(reply)));
    }
    return 0;
}

/* CardLogin */
static void card_login(const char *card)
{
    int32_t reply = 0, code, keeper_options = 0;

    code = verify_single_login(client, text_arg(0, card), machine, NULL, &reply);
    if (show_result(code, reply)) {
        verify_keeper_options_new(&keeper_options);
        verify_keeper_options_set_interval(keeper_options, 60000);
        verify_keeper_start_from_reply(client, reply, keeper_options, &keeper);
        verify_keeper_options_free(keeper_options);
        printf("keeper started %d\n", keeper != 0);
    }
    verify_reply_free(reply);
}

/* AccountLogin */
static void account_login(const char *username, const char *password)
{
    int32_t reply = 0, code;

    code = verify_user_login(client, text_arg(0, username), text_arg(1, password), machine, &reply);
    show_result(code, reply);
    verify_reply_free(reply);
}

/* ChangeBind */
static void change_bind(const char *username, const char *password)
{
    int32_t reply = 0, code;

    code =
        verify_change_bind(client, text_arg(0, username), text_arg(1, password), machine, &reply);
    show_result(code, reply);
    verify_reply_free(reply);
}

/* KeeperTick */
static int32_t keeper_tick(void)
{
    int32_t status = 0, state = 0, code = 0, p = 0;
    char remark[256] = "";

    if (verify_keeper_get_status(keeper, &status) != VERIFY_OK) {
        return -1;
    }
    verify_keeper_status_state(status, &state);
    verify_keeper_status_last_code(status, &code);
    if (state == VERIFY_KEEPER_ENDED) {
        if (verify_keeper_status_remark(status, &p) == 0) {
            snprintf(remark, sizeof remark, "%s", text_at(p));
        }
        printf("keeper ended: %s %s\n", text_at(verify_code_user_message(code, NULL)), remark);
    } else {
        if (state == VERIFY_KEEPER_GRACE) {
            printf("debug: grace %d\n", code);
        }
    }
    verify_keeper_status_free(status);
    return state;
}

/* DiagnosisStep: a procedure of five ByVal Long, given with AddressOf (stdcall) */
static long steps_seen;
static void __stdcall diagnosis_step(int32_t user_data, int32_t step, int32_t verdict, int32_t key,
                                     int32_t sentence)
{
    (void)user_data;
    (void)key;
    steps_seen++;
    printf("step %d %d %s\n", step, verdict, text_at(sentence));
}

/* Diagnose */
static void diagnose(void)
{
    int32_t diagnosis = 0, p = 0;

    verify_client_diagnose(client, 0, 20000, (int32_t)(uintptr_t)diagnosis_step, 0, &diagnosis);
    if (verify_diagnosis_first_line(diagnosis, NULL, &p) == 0) {
        printf("doctor: %s\n", text_at(p));
    }
    verify_diagnosis_free(diagnosis);
}

/* VerifyStop */
static void stop(void)
{
    if (keeper != 0) {
        verify_keeper_stop(keeper);
        verify_keeper_free(keeper);
    }
    verify_client_free(client);
}

int main(int argc, char **argv)
{
    const char *missing = "";
    HMODULE dll;
    DWORD deadline;
    int32_t state = 0;

    if (argc != 10) {
        printf("usage: vb6_replay BASE_URL MIRROR_URL APP_ID APP_KEY STATE_FOLDER CARD BANNED_CARD "
               "USERNAME PASSWORD\n");
        return 2;
    }
    dll = LoadLibraryA("verify.dll");
    CHECK(dll != NULL);
    if (dll == NULL || !easy_load(dll, &missing)) {
        printf("FAIL not exported: %s\n", missing);
        return 1;
    }
    CHECK(start(argv[1], argv[2], argv[3], argv[4], argv[5]));
    card_login(argv[7]); /* 1006: the ban reason as the remark */
    card_login(argv[6]); /* 200: the keeper starts */
    CHECK(keeper != 0);
    /* the Timer: until the keeper has beaten once (its first heartbeat is the login's) */
    deadline = GetTickCount() + 20000;
    while (keeper != 0 && GetTickCount() < deadline) {
        state = keeper_tick();
        if (state == VERIFY_KEEPER_ALIVE) {
            break;
        }
        Sleep(100);
    }
    CHECK(state == VERIFY_KEEPER_ALIVE);
    account_login(argv[8], argv[9]); /* 1022: the old machine code as the remark */
    change_bind(argv[8], argv[9]); /* 200 */
    account_login(argv[8], argv[9]); /* 200 */
    diagnose();
    CHECK(steps_seen > 0);
    stop();
    printf("RESULT: %ld checks, %ld failed\n", checks, failed);
    return failed == 0 ? 0 : 1;
}
