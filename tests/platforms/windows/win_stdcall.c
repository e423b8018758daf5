/*
 * win_stdcall.c: the 32-bit Windows calling convention of verify.dll, at run time (tests/platforms/windows/exports.rs
 * builds it for x86 only, links it by the x86 import library and runs it under 32-bit Wine).
 * VB6, 易语言 and Delphi declare every function stdcall: the callee pops its arguments.
 *
 *   win_stdcall BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD
 *
 * 1. A thunk in assembly pushes the arguments, calls a function and measures the bytes the
 *    callee popped. Controls first: a stdcall function of this program pops 4 bytes per
 *    argument, a cdecl one none (so a convention mismatch cannot go unseen); then one export
 *    of each arity, 0 to 7 arguments, pops 4 bytes per argument. (tests/platforms/windows/exports.rs checks
 *    every export statically: its `ret` pops 4 bytes per parameter of the header.)
 * 2. Every function of verify.h is called through the header, with arguments that make sense:
 *    a login, the keeper with its callback, the options with the log callback, every accessor.
 *    tests/platforms/windows/exports.rs checks that the program imports every function the header declares.
 * 3. The stack pointer is the same before and after 100,000 rounds of five calls and 200 logins.
 *
 * The card and the account exist on the sandbox; the card logs in 200 times on one machine.
 */

#include <stdint.h>
#include <stdlib.h>

#include <windows.h>

#include "win_host.h"

#if !defined(__i386__)
#error "win_stdcall.c checks the 32-bit x86 calling convention"
#endif

/* --- 1. the bytes a callee pops ------------------------------------------------------------ */

/*
 * Calls `fn` with `count` 4-byte arguments pushed right to left (as both conventions push
 * them) and returns how many bytes of them the callee popped: 4 per argument for stdcall,
 * none for cdecl. The stack pointer is put back afterwards whatever the callee did.
 */
typedef void (*any_function)(void);

static long popped_by(any_function fn, const uint32_t *args, unsigned long count)
{
    long moved;
    unsigned long left = count;
    const uint32_t *end = args + count;
    __asm__ volatile("movl %%esp, %%esi\n\t"
                     "testl %%ecx, %%ecx\n\t"
                     "jz 2f\n"
                     "1:\n\t"
                     "subl $4, %%edx\n\t"
                     "pushl (%%edx)\n\t"
                     "decl %%ecx\n\t"
                     "jnz 1b\n"
                     "2:\n\t"
                     "call *%%ebx\n\t"
                     "movl %%esp, %%eax\n\t"
                     "subl %%esi, %%eax\n\t"
                     "movl %%esi, %%esp\n\t"
                     : "=a"(moved), "+c"(left), "+d"(end)
                     : "b"(fn)
                     : "esi", "memory", "cc");
    return moved + (long)(4 * count);
}

static int32_t __attribute__((noinline, stdcall)) control_stdcall(int32_t a, int32_t b)
{
    return a + b;
}

static int32_t __attribute__((noinline, cdecl)) control_cdecl(int32_t a, int32_t b)
{
    return a - b;
}

#define ARGS(...) ((const uint32_t[]){__VA_ARGS__})
#define POPS(fn, count, ...)                                                                       \
    check_pops((any_function)(fn), #fn, ARGS(__VA_ARGS__), (count), 4L * (count))

static void check_pops(any_function fn, const char *name, const uint32_t *args, unsigned long count,
                       long expected)
{
    long popped = popped_by(fn, args, count);
    printf("pops %s: %ld of %lu argument bytes\n", name, popped, 4 * count);
    CHECK_INT(popped, expected);
}

static void pops(const char *base_url, const char *app_id, const char *app_key)
{
    verify_client *client = NULL;
    const char *text = NULL;
    char code[VERIFY_MACHINE_CODE_LEN + 1];
    uint32_t none = 0;

    /* the controls: the thunk tells the conventions apart */
    check_pops((any_function)control_stdcall, "control_stdcall", ARGS(1, 2), 2, 8);
    check_pops((any_function)control_cdecl, "control_cdecl", ARGS(1, 2), 2, 0);

    /* one export of each arity; arguments valid, or NULL handles the export refuses */
    POPS(verify_abi_version, 0, 0);
    POPS(verify_code_describe, 1, 200);
    POPS(verify_code_user_message, 2, 200, 0);
    POPS(verify_set_code_page, 1, VERIFY_CODE_PAGE_UTF8);
    POPS(verify_reply_free, 1, 0);
    POPS(verify_keeper_options_set_interval, 2, 0, 1000);
    POPS(verify_machine_code, 3, (uint32_t)(uintptr_t) "stdcall", (uint32_t)(uintptr_t)code,
         sizeof code);
    POPS(verify_client_new, 4, (uint32_t)(uintptr_t)base_url, (uint32_t)(uintptr_t)app_id,
         (uint32_t)(uintptr_t)app_key, (uint32_t)(uintptr_t)&client);
    CHECK(client != NULL);
    POPS(verify_client_set_timeouts, 3, (uint32_t)(uintptr_t)client, 10000, 30000);
    POPS(verify_single_login, 5, 0, (uint32_t)(uintptr_t) "CARD", 0, 0, (uint32_t)(uintptr_t)&none);
    POPS(verify_call, 6, 0, (uint32_t)(uintptr_t) "GetBulletin", 0, 0, 0,
         (uint32_t)(uintptr_t)&none);
    POPS(verify_social_login_wait, 7, 0, (uint32_t)(uintptr_t) "STATE", 0, 100, 100, 0,
         (uint32_t)(uintptr_t)&none);
    POPS(verify_reply_str, 3, 0, (uint32_t)(uintptr_t) "/code", (uint32_t)(uintptr_t)&text);
    POPS(verify_client_free, 1, (uint32_t)(uintptr_t)client);
}

/* --- 2. every function through the header -------------------------------------------------- */

static volatile LONG events_seen;
static volatile LONG log_lines;

static void VERIFY_CALL on_event(void *user_data, const verify_event *event)
{
    (void)event;
    if (user_data == (void *)&events_seen) {
        InterlockedIncrement(&events_seen);
    }
}

static void VERIFY_CALL on_log(void *user_data, int32_t level, const char *message)
{
    (void)level;
    if (user_data == (void *)&log_lines && message != NULL) {
        InterlockedIncrement(&log_lines);
    }
}

static volatile LONG steps_heard;

static void VERIFY_CALL on_step(void *user_data, int32_t step, int32_t verdict, const char *key,
                                const char *sentence)
{
    (void)verdict;
    if (user_data == (void *)&steps_heard && step >= VERIFY_STEP_OPTIONS && key != NULL &&
        sentence != NULL) {
        InterlockedIncrement(&steps_heard);
    }
}

/* The token of a reply, copied (NULL when it has none). */
static char *token_of(const verify_reply *reply)
{
    const char *token = NULL;
    char *copy;
    if (verify_reply_str(reply, "/data/token", &token) != 0 || token == NULL) {
        return NULL;
    }
    copy = (char *)malloc(strlen(token) + 1);
    if (copy != NULL) {
        strcpy(copy, token);
    }
    return copy;
}

/* A refusal by the server: a code of its own (not 200, not local) and a reply carrying it. */
static void refused(int32_t code, verify_reply **reply)
{
    CHECK(code > VERIFY_PENDING);
    CHECK(*reply != NULL);
    if (*reply != NULL) {
        CHECK_INT(verify_reply_code(*reply), code);
    }
    verify_reply_free(*reply);
    *reply = NULL;
}

/* Waits, up to `limit_ms`, until the keeper has sent a heartbeat that succeeded and its
 * event thread has called back. */
static int keeper_alive(const verify_keeper *keeper, DWORD limit_ms)
{
    DWORD start = GetTickCount();
    for (;;) {
        verify_keeper_status *status = NULL;
        uint64_t ok = 0, failed = 0;
        if (verify_keeper_get_status(keeper, &status) == VERIFY_OK) {
            verify_keeper_status_counts(status, &ok, &failed);
            verify_keeper_status_free(status);
        }
        if (ok > 0 && events_seen > 0) {
            return 1;
        }
        if (GetTickCount() - start > limit_ms) {
            return 0;
        }
        Sleep(20);
    }
}

static void every_function(const char *base_url, const char *app_id, const char *app_key,
                           const char *card, const char *username, const char *password)
{
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    verify_reply *login = NULL;
    verify_cancel *cancel = NULL;
    verify_keeper_options *keeper_options = NULL;
    verify_keeper *keeper = NULL;
    verify_keeper_status *status = NULL;
    const char *text = NULL;
    const char *keys[] = {"Name"};
    const char *values[] = {"greeting"};
    char code[VERIFY_MACHINE_CODE_LEN + 1];
    char *token;
    int64_t number = 0;
    int32_t flag = 0;
    uint64_t ok = 0, failed = 0;
    size_t count = 0;

    /* meta */
    CHECK_INT(verify_abi_version(), VERIFY_ABI_VERSION);
    CHECK(verify_version()[0] != '\0');
    CHECK(strcmp(verify_code_describe(VERIFY_OK), "success") == 0);
    CHECK(strcmp(verify_code_user_message(VERIFY_OK, "en"), "Success.") == 0);
    CHECK_INT(verify_set_language("en"), VERIFY_OK);
    CHECK(strcmp(verify_language(), "en") == 0);
    CHECK_INT(verify_set_language(NULL), VERIFY_OK);
    CHECK_INT(verify_set_code_page(VERIFY_CODE_PAGE_UTF8), VERIFY_OK);
    CHECK_INT(verify_code_page(), VERIFY_CODE_PAGE_UTF8);
    CHECK_INT(verify_panic_self_test("panic"), VERIFY_ERR_PANIC);
    CHECK_INT(verify_panic_self_test(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_code("stdcall", code, sizeof code), VERIFY_OK);
    CHECK(strlen(code) == VERIFY_MACHINE_CODE_LEN);
    CHECK_INT(
        verify_machine_code_ex("stdcall", VERIFY_MACHINE_V2, "stdcall-machine", code, sizeof code),
        VERIFY_OK);
    CHECK(strlen(code) == VERIFY_MACHINE_CODE_LEN);
    {
        verify_machine_check *check = NULL;
        verify_machine_virtual *report = NULL;
        int32_t kind = 0, state = 0, weight = 0;
        CHECK_INT(verify_machine_check_new("stdcall", "stdcall-machine", &check), VERIFY_OK);
        CHECK_INT(verify_machine_check_code(check, &text), 0);
        CHECK(strcmp(text, code) == 0);
        CHECK_INT(verify_machine_check_outcome(check, &flag), 0);
        CHECK_INT(verify_machine_check_score(check, &state), 0);
        state = verify_machine_check_note(check, &text); /* a note only when there is one */
        CHECK(state == 0 || state == VERIFY_ERR_NO_SUCH_FIELD);
        CHECK_INT(verify_machine_check_count(check, &count), 0);
        CHECK(count > 0);
        CHECK_INT(verify_machine_check_component(check, 0, &kind, &state, &weight), 0);
        CHECK(verify_machine_component_name(kind) != NULL);
        CHECK(verify_machine_state_name(state) != NULL);
        verify_machine_check_free(check);
        CHECK_INT(verify_machine_virtual_new(&report), VERIFY_OK);
        CHECK_INT(verify_machine_virtual_looks_virtual(report, &flag), 0);
        CHECK_INT(verify_machine_virtual_count(report, &count), 0);
        if (count > 0) {
            CHECK_INT(verify_machine_virtual_sign(report, 0, &kind, &text), 0);
        }
        verify_machine_virtual_free(report);
    }

    /* the doctor, with the default options */
    {
        verify_diagnosis *diagnosis = NULL;
        int32_t step = 0, verdict = 0;
        CHECK_INT(verify_diagnose(base_url, app_id, app_key, NULL, 8000, &diagnosis), VERIFY_OK);
        CHECK_INT(verify_diagnosis_verdict(diagnosis, &verdict), 0);
        CHECK_INT(verify_diagnosis_json(diagnosis, &text), 0);
        CHECK(strstr(text, "\"version\":2") != NULL);
        CHECK_INT(verify_diagnosis_text(diagnosis, &text), 0);
        CHECK_INT(verify_diagnosis_text_in(diagnosis, "zh-CN", &text), 0);
        /* The first line names the cause; the second sums the run up. */
        CHECK(strstr(text, "\nverify ") != NULL);
        CHECK_INT(verify_diagnosis_count(diagnosis, &count), 0);
        CHECK(count > 0);
        CHECK_INT(verify_diagnosis_step(diagnosis, 0, &step, &verdict, &text, NULL), 0);
        CHECK_INT(step, VERIFY_STEP_OPTIONS);
        verify_diagnosis_free(diagnosis);
    }

    /* client options, with the log callback */
    CHECK_INT(verify_client_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_client_options_set_trust(options, VERIFY_TRUST_MOZILLA), VERIFY_OK);
    CHECK_INT(verify_client_options_add_root_pem(options, "not a PEM"),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_client_options_add_root_file(options, "C:\\no\\such\\file.pem"),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(
        verify_client_options_add_pin(options, "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="),
        VERIFY_OK);
    CHECK_INT(verify_client_options_set_trust(options, 0), VERIFY_OK);
    CHECK_INT(verify_client_options_set_proxy(options, VERIFY_PROXY_NONE, NULL), VERIFY_OK);
    CHECK_INT(verify_client_options_allow_insecure_http(options, 0), VERIFY_OK);
    CHECK_INT(verify_client_options_set_timeouts(options, 10000, 30000), VERIFY_OK);
    CHECK_INT(verify_client_options_set_attempt_delay(options, 250), VERIFY_OK);
    CHECK_INT(verify_client_options_add_address(options, "verify.example.test", "127.0.0.1"),
              VERIFY_OK);
    CHECK_INT(verify_client_options_set_state_folder(options, "stdcall-state"), VERIFY_OK);
    CHECK_INT(verify_client_options_set_remembered_addresses_max_age(options, 86400), VERIFY_OK);
    CHECK_INT(verify_client_options_set_offline_grace(options, 3600), VERIFY_OK);
    CHECK_INT(verify_client_options_set_start_budget(options, 0), VERIFY_OK);
    CHECK_INT(verify_client_options_set_clock_tolerance(options, 600), VERIFY_OK);
    CHECK_INT(verify_client_options_add_mirror(options, base_url), VERIFY_OK);
    CHECK_INT(verify_client_options_set_log(options, on_log, (void *)&log_lines), VERIFY_OK);
    CHECK_INT(verify_client_new_with_options(base_url, app_id, app_key, options, &client),
              VERIFY_OK);
    verify_client_options_free(options);
    CHECK_INT(verify_client_set_timeouts(client, 10000, 30000), VERIFY_OK);

    /* the doctor from the client: its step callback (stdcall) on this thread */
    {
        verify_diagnosis *diagnosis = NULL;
        size_t index = 0;
        size_t steps = 0;
        int32_t actor = 0;
        const char *key = NULL;
        int32_t found;
        CHECK_INT(
            verify_client_diagnose(client, NULL, 8000, on_step, (void *)&steps_heard, &diagnosis),
            VERIFY_OK);
        CHECK_INT(verify_diagnosis_count(diagnosis, &steps), 0);
        CHECK_INT(steps_heard, (long long)steps);
        CHECK_INT(verify_diagnosis_first_line(diagnosis, "zh-CN", &text), 0);
        CHECK(text != NULL && text[0] != '\0');
        found = verify_diagnosis_cause(diagnosis, 0, NULL, &index, &actor, &key, &text);
        CHECK(found == 0 || found == VERIFY_ERR_NO_SUCH_FIELD);
        CHECK_INT(verify_diagnosis_step_text(diagnosis, 0, "en", &text), 0);
        CHECK_INT(verify_diagnosis_support_file(diagnosis, "en", &text), 0);
        CHECK(text != NULL && strstr(text, app_key) == NULL);
        CHECK_INT(verify_diagnosis_save(diagnosis, "en", "stdcall-support.txt"), VERIFY_OK);
        verify_diagnosis_free(diagnosis);
    }

    /* the calls and the reply accessors */
    CHECK_INT(verify_init(client, &reply), VERIFY_OK);
    CHECK_INT(verify_reply_code(reply), VERIFY_OK);
    CHECK(verify_reply_message(reply) != NULL);
    verify_reply_free(reply);
    CHECK_INT(verify_call(client, "GetVariable", keys, values, 1, &reply), VERIFY_OK);
    CHECK_INT(verify_reply_str(reply, "/data/value", &text), 0);
    CHECK(text != NULL && strstr(text, "welcome") != NULL);
    CHECK_INT(verify_reply_int(reply, "/code", &number), 0);
    CHECK_INT(number, 200);
    CHECK_INT(verify_reply_bool(reply, "/code", &flag), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_json(reply, "/data", &text), 0);
    verify_reply_free(reply);

    CHECK_INT(verify_single_login(client, card, "STDCALL-MACHINE", NULL, &login), VERIFY_OK);
    token = token_of(login);
    CHECK(token != NULL);
    CHECK_INT(verify_reply_offline(login, &number, &number, &flag), VERIFY_ERR_NO_SUCH_FIELD);
    /* the service's times as numbers (a number is no time of the service) */
    {
        int64_t seconds = 0;
        int32_t offset = 0;
        CHECK_INT(verify_reply_time(login, "/code", &seconds, &offset), VERIFY_ERR_NO_SUCH_FIELD);
        CHECK_INT(verify_service_time("2026-01-02 08:00:00", &seconds, &offset), 0);
        CHECK_INT(seconds, 1767312000);
        CHECK_INT(offset, 28800);
    }
    CHECK_INT(verify_heartbeat(client, token ? token : "", VERIFY_SESSION_CARD, NULL, &reply),
              VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_get_card_info(client, card, &reply), VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_user_login(client, username, password, "STDCALL-MACHINE", &reply), VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_get_user_info(client, username, password, &reply), VERIFY_OK);
    verify_reply_free(reply);
    /* refusals: the server answered, with a reply of the code returned */
    refused(verify_user_login_with_card(client, username, password, "NO-SUCH-CARD",
                                        "STDCALL-MACHINE", &reply),
            &reply);
    refused(verify_user_register(client, username, "other", "NO-SUCH-CARD", NULL, NULL, &reply),
            &reply);
    refused(verify_update_password(client, username, "wrong", "new-password", &reply), &reply);
    refused(verify_change_bind(client, username, "wrong", "STDCALL-OTHER", &reply), &reply);
    refused(verify_user_recharge(client, username, "NO-SUCH-CARD", &reply), &reply);
    CHECK_INT(verify_get_latest_version(client, "1.0.0", &reply), VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_get_variable(client, "greeting", &reply), VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_get_variables(client, &reply), VERIFY_OK);
    count = 0;
    CHECK_INT(verify_reply_member_count(reply, "/data/variables", &count), 0);
    CHECK(count > 0);
    text = NULL;
    CHECK_INT(verify_reply_member_name(reply, "/data/variables", 0, &text), 0);
    CHECK(text != NULL && text[0] != '\0');
    CHECK_INT(verify_reply_member_name(reply, "/data/variables", count, &text),
              VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_array_length(reply, "/data/variables", &count),
              VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_array_length(reply, "/data", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    verify_reply_free(reply);
    CHECK_INT(verify_social_login_start(client, "STDCALL-MACHINE", &reply), VERIFY_OK);
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/state", &text), 0);
    if (text != NULL) {
        verify_reply *poll = NULL;
        CHECK_INT(verify_social_login_poll(client, text, "STDCALL-MACHINE", &poll), VERIFY_PENDING);
        verify_reply_free(poll);
    }
    verify_reply_free(reply);
    CHECK_INT(
        verify_social_register_start(client, "stdcall-new-user", "STDCALL-MACHINE", NULL, &reply),
        VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_cancel_new(&cancel), VERIFY_OK);
    {
        /* A token attached to this thread cancels a call that takes none of its own. */
        int32_t cancelled = -1;
        CHECK_INT(verify_cancel_is_cancelled(cancel, &cancelled), VERIFY_OK);
        CHECK_INT(cancelled, 0);
        CHECK_INT(verify_cancel_attach(cancel), VERIFY_OK);
        CHECK_INT(verify_cancel_cancel(cancel), VERIFY_OK);
        CHECK_INT(verify_cancel_is_cancelled(cancel, &cancelled), VERIFY_OK);
        CHECK_INT(cancelled, 1);
        CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_ERR_CANCELLED);
        CHECK(reply == NULL);
        CHECK_INT(verify_cancel_detach(cancel), VERIFY_OK);
    }
    CHECK_INT(verify_social_login_wait(client, "STATE", NULL, 100, 1000, cancel, &reply),
              VERIFY_ERR_CANCELLED);
    CHECK(reply == NULL);
    verify_cancel_free(cancel);
    CHECK(verify_last_error_code() == VERIFY_ERR_CANCELLED);
    CHECK(verify_last_error_message()[0] != '\0');

    /* the keeper, with its event callback */
    CHECK_INT(verify_keeper_options_new(&keeper_options), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_interval(keeper_options, 1000), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_grace(keeper_options, 60000), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_ip(keeper_options, "127.0.0.1"), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_callback(keeper_options, on_event, (void *)&events_seen),
              VERIFY_OK);
    CHECK_INT(verify_keeper_start(client, token ? token : "", VERIFY_SESSION_CARD, keeper_options,
                                  &keeper),
              VERIFY_OK);
    CHECK(keeper_alive(keeper, 30000));
    CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ALIVE);
    CHECK_INT(verify_keeper_get_status(keeper, &status), VERIFY_OK);
    CHECK_INT(verify_keeper_status_state(status, &flag), 0);
    CHECK_INT(flag, VERIFY_KEEPER_ALIVE);
    CHECK_INT(verify_keeper_status_last_code(status, &flag), 0);
    CHECK_INT(flag, VERIFY_OK);
    CHECK_INT(verify_keeper_status_last_message(status, &text), 0);
    CHECK_INT(verify_keeper_status_remark(status, &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_keeper_status_expire_at(status, &text), 0);
    CHECK_INT(verify_keeper_status_last_success(status, &number), 0);
    CHECK(number > 0);
    CHECK_INT(verify_keeper_status_counts(status, &ok, &failed), 0);
    CHECK(ok >= 1);
    CHECK_INT(verify_keeper_status_message_count(status, &count), 0);
    CHECK_INT(verify_keeper_status_message(status, count, &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_keeper_status_last_confirmed(status, &number), 0);
    CHECK(number > 0);
    CHECK_INT(verify_keeper_status_grace_end(status, &number), VERIFY_ERR_NO_SUCH_FIELD);
    verify_keeper_status_free(status);
    CHECK_INT(verify_keeper_stop(keeper), VERIFY_OK);
    verify_keeper_free(keeper);
    /* a keeper from the login's reply */
    keeper = NULL;
    CHECK_INT(verify_keeper_start_from_reply(client, login, keeper_options, &keeper), VERIFY_OK);
    CHECK(keeper != NULL);
    CHECK_INT(verify_keeper_stop(keeper), VERIFY_OK);
    verify_keeper_free(keeper);
    verify_keeper_options_free(keeper_options);
    verify_reply_free(login);
    CHECK(events_seen >= 1);
    CHECK(log_lines >= 1);
    printf("keeper events %ld, log lines %ld\n", (long)events_seen, (long)log_lines);

    free(token);
    verify_client_free(client);
}

/* --- 3. the stack pointer over many calls -------------------------------------------------- */

#define READ_SP(var) __asm__ volatile("movl %%esp, %0" : "=r"(var))

static void stack_pointer(const char *base_url, const char *app_id, const char *app_key,
                          const char *card)
{
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    uintptr_t before, after;
    long i, calls_ok = 0, logins_ok = 0;

    CHECK_INT(verify_client_new(base_url, app_id, app_key, &client), VERIFY_OK);
    READ_SP(before);
    for (i = 0; i < 100000; i++) {
        calls_ok += verify_abi_version() == VERIFY_ABI_VERSION;
        calls_ok += verify_code_describe((int32_t)(i % 40) - 20) != NULL;
        calls_ok += verify_code_page() == VERIFY_CODE_PAGE_UTF8;
        calls_ok += verify_reply_code(NULL) == VERIFY_ERR_INVALID_ARGUMENT;
        verify_reply_free(NULL);
    }
    for (i = 0; i < 200; i++) {
        logins_ok +=
            verify_single_login(client, card, "STDCALL-MACHINE", NULL, &reply) == VERIFY_OK;
        verify_reply_free(reply);
        reply = NULL;
    }
    READ_SP(after);
    printf("stack pointer %08lx before, %08lx after 100000 rounds and 200 logins\n",
           (unsigned long)before, (unsigned long)after);
    CHECK(before == after);
    CHECK_INT(calls_ok, 400000);
    CHECK_INT(logins_ok, 200);
    verify_client_free(client);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD\n", argv[0]);
        return 2;
    }
    pops(argv[1], argv[2], argv[3]);
    every_function(argv[1], argv[2], argv[3], argv[4], argv[5], argv[6]);
    stack_pointer(argv[1], argv[2], argv[3], argv[4]);
    return host_result();
}
