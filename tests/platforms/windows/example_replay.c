/*
 * example_replay.c: the example programs replayed call for call under 32-bit Wine, through the
 * declarations of the generated files, as the IDE declares them; built twice by
 * tests/platforms/windows/easy_vb6.rs:
 *   - 易语言 (the default): bindings/easy/例子.e.txt through easy_decl.h, made from
 *     bindings/easy/verify.e.txt: __stdcall, 整数型 int32_t, 长整数型 int64_t, 文本型 char *,
 *     传址 a pointer, and the .常量 as #defines; an empty 文本型 is "";
 *   - VB6 (-DREPLAY_VB6): bindings/vb6/Example.bas through vb6_decl.h, made from
 *     bindings/vb6/verify.bas: __stdcall, Long int32_t, ByRef a pointer, Currency the 64-bit
 *     integer it is, a ByVal String the char * of its ANSI copy, vbNullString NULL; the Consts
 *     and Enums as #defines.
 * The two examples make the same calls in the same order. Each 子程序 / procedure of an example
 * is a function here (named in the comment above it, 易语言 first) with the same calls in the
 * same order (tests/hosts/declarations.rs compares the lists); 信息框, 调试输出, MsgBox and
 * Debug.Print print.
 *
 *   example_replay BASE_URL MIRROR_URL APP_ID APP_KEY STATE_FOLDER CARD BANNED_CARD USERNAME
 *                  PASSWORD
 */

#include <stdio.h>
#include <string.h>

#if defined(REPLAY_VB6)
#include "vb6_decl.h"
/* vbNullString: a ByVal String passes NULL */
#define NO_TEXT(slot) NULL
/* AddressOf: a Long */
#define ADDRESS_OF(f) ((int32_t)(uintptr_t)(f))
#else
#include "easy_decl.h"
/* "": an empty 文本型 */
#define NO_TEXT(slot) text_arg(slot, "")
/* &子程序: a 子程序指针 */
#define ADDRESS_OF(f) ((void *)(uintptr_t)(f))
#endif

static long checks, failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failed++;                                                                              \
            printf("FAIL line %d: %s\n", __LINE__, #cond);                                         \
        }                                                                                          \
    } while (0)

/* 指针到文本 (); VerifyText */
static const char *text_at(int32_t p)
{
    return p == 0 ? "" : (const char *)(uintptr_t)p;
}

/* 程序集变量; the module's Private variables */
static int32_t client;
static char machine[64];
static int32_t keeper;

static char text_buffer[8][512];
static char *text_arg(int slot, const char *value)
{
    snprintf(text_buffer[slot], sizeof text_buffer[slot], "%s", value);
    return text_buffer[slot];
}

/* __启动窗口_创建完毕; VerifyStart */
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
        printf("message: %s\n", text_at(verify_code_user_message(code, NO_TEXT(0))));
        printf("debug: %d %s\n", code, text_at(verify_last_error_message()));
        return 0;
    }
    if (verify_machine_check_new(text_arg(0, "10001"), NO_TEXT(1), &check) == VERIFY_OK) {
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

/* 显示结果; ShowResult */
static int show_result(int32_t code, int32_t reply)
{
    int32_t p = 0, reason = 0;
    int64_t confirmed_at = 0, grace_end = 0;
    char remark[256] = "";

    if (reply == 0) {
        printf("message: %s\n", text_at(verify_code_user_message(code, NO_TEXT(0))));
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

/* _按钮_卡密登录_被单击; CardLogin */
static void card_login(const char *card)
{
    int32_t reply = 0, code, keeper_options = 0;

    code = verify_single_login(client, text_arg(0, card), machine, NO_TEXT(1), &reply);
    if (show_result(code, reply)) {
        verify_keeper_options_new(&keeper_options);
        verify_keeper_options_set_interval(keeper_options, 60000);
        verify_keeper_start_from_reply(client, reply, keeper_options, &keeper);
        verify_keeper_options_free(keeper_options);
        printf("keeper started %d\n", keeper != 0);
    }
    verify_reply_free(reply);
}

/* _按钮_账号登录_被单击; AccountLogin */
static void account_login(const char *username, const char *password)
{
    int32_t reply = 0, code;

    code = verify_user_login(client, text_arg(0, username), text_arg(1, password), machine, &reply);
    show_result(code, reply);
    verify_reply_free(reply);
}

/* _按钮_换绑_被单击; ChangeBind */
static void change_bind(const char *username, const char *password)
{
    int32_t reply = 0, code;

    code =
        verify_change_bind(client, text_arg(0, username), text_arg(1, password), machine, &reply);
    show_result(code, reply);
    verify_reply_free(reply);
}

/* _时钟_保活_周期事件; KeeperTick */
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
        printf("keeper ended: %s %s\n", text_at(verify_code_user_message(code, NO_TEXT(0))),
               remark);
    } else {
        if (state == VERIFY_KEEPER_GRACE) {
            printf("debug: grace %d\n", code);
        }
    }
    verify_keeper_status_free(status);
    return state;
}

/* 诊断回调: a 易语言 子程序 of five 整数型, called by address (stdcall); DiagnosisStep: a
 * procedure of five ByVal Long, given with AddressOf (stdcall) */
static long steps_seen;
static void __stdcall diagnosis_step(int32_t user_data, int32_t step, int32_t verdict, int32_t key,
                                     int32_t sentence)
{
    (void)user_data;
    (void)key;
    steps_seen++;
    printf("step %d %d %s\n", step, verdict, text_at(sentence));
}

/* _按钮_诊断_被单击; Diagnose */
static void diagnose(void)
{
    int32_t diagnosis = 0, p = 0;

    verify_client_diagnose(client, 0, 20000, ADDRESS_OF(diagnosis_step), 0, &diagnosis);
    if (verify_diagnosis_first_line(diagnosis, NO_TEXT(0), &p) == 0) {
        printf("doctor: %s\n", text_at(p));
    }
    verify_diagnosis_free(diagnosis);
}

/* __启动窗口_将被销毁; VerifyStop */
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
        printf("usage: example_replay BASE_URL MIRROR_URL APP_ID APP_KEY STATE_FOLDER CARD "
               "BANNED_CARD "
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
    /* the 时钟: until the keeper has beaten once (its first heartbeat is the login's) */
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
