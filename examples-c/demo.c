/*
 * demo.c: a tour of the verify C API against a server (normally verify-sandbox).
 *
 *   demo BASE_URL [APP_ID APP_KEY] [--ca CA_PEM_FILE] [--state DIR [--offline-start]]
 *
 * APP_ID and APP_KEY default to the program of sandbox/fixtures/demo.json (10001). The demo
 * walks both authorization modes of the service, step by step:
 *
 *   card mode     verify_client_new, verify_init, verify_single_login, verify_heartbeat (card)
 *   account mode  verify_user_register (with a card), verify_user_login, verify_heartbeat
 *                 (user), verify_user_recharge, verify_change_bind, verify_user_login on the
 *                 new machine
 *   extras        verify_get_bulletin, verify_get_latest_version, verify_get_variables
 *
 * For each step it prints the function, the result code, verify_code_describe(code) (for
 * the developer, in English), the message for the person in front of the program
 * (verify_code_user_message(code, NULL): in the machine's language, Chinese under
 * LANG=zh_CN.UTF-8 or on Chinese Windows), the server's message and the reply's fields, read
 * with the accessors of ABI 2: a JSON Pointer ("/data/token") and an out-parameter, the
 * return value saying whether the field is there. Every step expects 200. A program shows
 * its user the server's message when there is one, else verify_code_user_message.
 *
 * Offline-first: with `--state DIR` the client keeps the last good verdict, sealed, in the
 * folder DIR (verify_client_options_set_state_folder, verify_client_options_set_offline_grace:
 * 7 days). Run it again with `--offline-start` once the server is stopped: its one step, the
 * card login, is licensed from the store (VERIFY_OFFLINE), and says when the server last
 * confirmed the licence and until when the grace lasts (verify_reply_offline).
 * scripts/demo.sh does both. The demo spends the cards
 * DEMO-REGN-0000-0001 and DEMO-RECH-0000-0001, so run it against a freshly started sandbox
 * (scripts/demo.sh does that). Exit status: 0 when every step got its expected code, else 1.
 *
 * Build (from the repository root, after `cargo build`):
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -I include examples-c/demo.c \
 *      -L target/debug -lverify -Wl,-rpath,target/debug -o demo
 * The rpath is relative to the working directory, so run ./demo from the repository root
 * (or give -Wl,-rpath,"$PWD/target/debug"). Or with CMake: see examples-c/CMakeLists.txt.
 */

#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200112L /* getpid() */
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _WIN32
#include <process.h>
#define demo_pid() ((long)_getpid())
#else
#include <unistd.h>
#define demo_pid() ((long)getpid())
#endif

#include "verify.h"

#define DEFAULT_APP_ID "10001"
#define DEFAULT_APP_KEY "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"

#define CARD_LOGIN "DEMO-CARD-0000-0001"
#define CARD_REGISTER "DEMO-REGN-0000-0001"
#define CARD_RECHARGE "DEMO-RECH-0000-0001"
#define MACHINE_CARD "DEMO-MACHINE-CARD-0001"
#define MACHINE_A "DEMO-MACHINE-A-0001"
#define MACHINE_B "DEMO-MACHINE-B-0002"
#define PASSWORD "demo-Passw0rd"

/* Which fields a step prints, and how. */
enum field_kind {
    FIELD_TEXT, /* verify_reply_str, as it is */
    FIELD_SECRET, /* verify_reply_str, shortened (tokens) */
    FIELD_INT, /* verify_reply_int */
    FIELD_BOOL, /* verify_reply_bool */
    FIELD_JSON /* verify_reply_json: the value as JSON text (an object lists its keys) */
};

/* A field of the reply's `data` object, printed under its name. */
struct field {
    const char *name;
    enum field_kind kind;
};

#define MAX_FAILURES 32

struct demo {
    int steps;
    int failures;
    const char *failed[MAX_FAILURES];
};

static void record_failure(struct demo *demo, const char *step)
{
    if (demo->failures < MAX_FAILURES) {
        demo->failed[demo->failures] = step;
    }
    demo->failures++;
}

/* A heap copy of a borrowed string (C99 has no strdup); NULL stays NULL. */
static char *copy_string(const char *text)
{
    char *copy;
    size_t length;
    if (text == NULL) {
        return NULL;
    }
    length = strlen(text) + 1;
    copy = (char *)malloc(length);
    if (copy == NULL) {
        fprintf(stderr, "demo: out of memory\n");
        exit(1);
    }
    memcpy(copy, text, length);
    return copy;
}

static void print_field(const verify_reply *reply, const struct field *field)
{
    char pointer[96];
    const char *text = NULL;
    int32_t found;

    /* A JSON Pointer from the top of the reply: "/data/token". */
    snprintf(pointer, sizeof pointer, "/data/%s", field->name);
    switch (field->kind) {
        case FIELD_INT: {
            int64_t value = 0;
            if (verify_reply_int(reply, pointer, &value) == 0) {
                printf("      %-14s %lld\n", field->name, (long long)value);
            } else {
                printf("      %-14s (absent)\n", field->name);
            }
            return;
        }
        case FIELD_BOOL: {
            int32_t value = 0;
            if (verify_reply_bool(reply, pointer, &value) == 0) {
                printf("      %-14s %s\n", field->name, value ? "true" : "false");
            } else {
                printf("      %-14s (absent)\n", field->name);
            }
            return;
        }
        case FIELD_JSON:
            if (verify_reply_json(reply, pointer, &text) == 0) {
                printf("      %-14s %s\n", field->name, text);
            } else {
                printf("      %-14s (absent)\n", field->name);
            }
            return;
        case FIELD_TEXT:
        case FIELD_SECRET:
            break;
    }
    found = verify_reply_str(reply, pointer, &text);
    if (found != 0) {
        /* VERIFY_ERR_NO_SUCH_FIELD: absent (or not a string, number or boolean). */
        printf("      %-14s (absent)\n", field->name);
    } else if (field->kind == FIELD_SECRET && strlen(text) > 8) {
        /* Never print a whole token: its first characters are enough to tell them apart. */
        printf("      %-14s %.4s\xe2\x80\xa6(%lu chars)\n", field->name, text,
               (unsigned long)strlen(text));
    } else {
        printf("      %-14s \"%s\"\n", field->name, text);
    }
}

/*
 * Reports one step: its code, the description, the server's message and the fields.
 * `last_error` is the copy of verify_last_error_message() taken right after the call (the
 * accessors leave it alone, but the next call's failure would replace it).
 * Returns 1 when `code` is `expected`, else records the failure and returns 0.
 */
static int report(struct demo *demo, const char *step, int32_t code, int32_t expected,
                  const verify_reply *reply, const char *last_error, const struct field *fields,
                  size_t field_count)
{
    size_t i;
    const char *message = reply != NULL ? verify_reply_message(reply) : NULL;

    demo->steps++;
    printf("\n[%s] code %d (%s)\n", step, (int)code, verify_code_describe(code));
    printf("      %-14s \"%s\"\n", "for the user", verify_code_user_message(code, NULL));
    if (message != NULL) {
        printf("      %-14s \"%s\"\n", "message", message);
    } else if (code != VERIFY_OK) {
        printf("      %-14s (no reply from the server)\n", "message");
    }
    if (reply != NULL && (code == VERIFY_OK || code == VERIFY_OFFLINE)) {
        for (i = 0; i < field_count; i++) {
            print_field(reply, &fields[i]);
        }
    } else if (reply != NULL) {
        /* Refusals may carry data.remark (1006: the reason, 1022: the bound machine). */
        const char *remark = NULL;
        if (verify_reply_str(reply, "/data/remark", &remark) == 0) {
            printf("      %-14s \"%s\"\n", "remark", remark);
        }
    }

    if (code == expected) {
        printf("      -> ok (expected %d)\n", (int)expected);
        return 1;
    }
    printf("      -> FAILED: expected %d (%s), got %d; last error: %s\n", (int)expected,
           verify_code_describe(expected), (int)code,
           last_error != NULL && last_error[0] != '\0' ? last_error : "(none)");
    record_failure(demo, step);
    return 0;
}

/* The thread's last error message as an owned copy, taken when `code` is not a success. */
static char *take_last_error(int32_t code)
{
    return code == VERIFY_OK ? NULL : copy_string(verify_last_error_message());
}

/*
 * Finishes a step: reports it, frees the reply and the error copy. Returns 1 on the
 * expected code. `keep` (optional) receives a heap copy of that field of the reply, for
 * later steps (the reply's strings die with the reply).
 */
static int finish(struct demo *demo, const char *step, int32_t code, verify_reply *reply,
                  const struct field *fields, size_t field_count, const char *keep_field,
                  char **keep)
{
    char *last_error = take_last_error(code);
    int ok = report(demo, step, code, VERIFY_OK, reply, last_error, fields, field_count);
    if (ok && keep != NULL) {
        char pointer[96];
        const char *value = NULL;
        snprintf(pointer, sizeof pointer, "/data/%s", keep_field);
        *keep = verify_reply_str(reply, pointer, &value) == 0 ? copy_string(value) : NULL;
        if (*keep == NULL) {
            printf("      -> FAILED: the reply has no `%s`\n", keep_field);
            record_failure(demo, step);
            ok = 0;
        }
    }
    free(last_error);
    verify_reply_free(reply);
    return ok;
}

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

static void card_mode(struct demo *demo, verify_client *client)
{
    static const struct field login_fields[] = {
        {"token", FIELD_SECRET},   {"status", FIELD_TEXT},    {"is_times", FIELD_BOOL},
        {"card_type", FIELD_TEXT}, {"expire_at", FIELD_TEXT},
    };
    static const struct field heartbeat_fields[] = {
        {"expire_at", FIELD_TEXT}, {"status", FIELD_TEXT}, {"msg", FIELD_TEXT}};
    verify_reply *reply = NULL;
    char *token = NULL;
    int32_t code;

    printf("\n=== card mode: card %s on machine %s ===\n", CARD_LOGIN, MACHINE_CARD);

    /* Optional: the first action would run Init itself. Its reply's data is the session
     * secret (api_password), which the library keeps and the demo does not print. */
    code = verify_init(client, &reply);
    if (!finish(demo, "verify_init", code, reply, NULL, 0, NULL, NULL)) {
        return;
    }

    code = verify_single_login(client, CARD_LOGIN, MACHINE_CARD, "demo machine", &reply);
    if (!finish(demo, "verify_single_login", code, reply, login_fields, COUNT(login_fields),
                "token", &token)) {
        return;
    }

    code = verify_heartbeat(client, token, VERIFY_SESSION_CARD, NULL, &reply);
    finish(demo, "verify_heartbeat(VERIFY_SESSION_CARD)", code, reply, heartbeat_fields,
           COUNT(heartbeat_fields), NULL, NULL);
    free(token);
}

static void account_mode(struct demo *demo, verify_client *client)
{
    static const struct field register_fields[] = {
        {"username", FIELD_TEXT}, {"user_id", FIELD_INT},    {"token", FIELD_SECRET},
        {"status", FIELD_TEXT},   {"expire_at", FIELD_TEXT},
    };
    static const struct field login_fields[] = {
        {"username", FIELD_TEXT}, {"device_id", FIELD_TEXT}, {"token", FIELD_SECRET},
        {"status", FIELD_TEXT},   {"expire_at", FIELD_TEXT}, {"remark", FIELD_TEXT},
    };
    static const struct field heartbeat_fields[] = {
        {"expire_at", FIELD_TEXT}, {"status", FIELD_TEXT}, {"msg", FIELD_TEXT}};
    static const struct field recharge_fields[] = {{"username", FIELD_TEXT},
                                                   {"added_days", FIELD_TEXT},
                                                   {"expire_at", FIELD_TEXT},
                                                   {"status", FIELD_TEXT}};
    static const struct field bind_fields[] = {{"username", FIELD_TEXT},
                                               {"device_id", FIELD_TEXT},
                                               {"bind_count", FIELD_INT},
                                               {"bind_limit", FIELD_INT}};
    verify_reply *reply = NULL;
    char username[64];
    char *token = NULL;
    int32_t code;

    /* A username unique per run, so the demo can run again against the same program. */
    snprintf(username, sizeof username, "demo_%ld_%ld", demo_pid(), (long)time(NULL));
    printf("\n=== account mode: user %s, card %s, machine %s then %s ===\n", username,
           CARD_REGISTER, MACHINE_A, MACHINE_B);

    code = verify_user_register(client, username, PASSWORD, CARD_REGISTER, MACHINE_A,
                                "demo machine A", &reply);
    if (!finish(demo, "verify_user_register", code, reply, register_fields, COUNT(register_fields),
                NULL, NULL)) {
        return;
    }

    code = verify_user_login(client, username, PASSWORD, MACHINE_A, &reply);
    if (!finish(demo, "verify_user_login(machine A)", code, reply, login_fields,
                COUNT(login_fields), "token", &token)) {
        return;
    }

    code = verify_heartbeat(client, token, VERIFY_SESSION_USER, NULL, &reply);
    free(token);
    token = NULL;
    if (!finish(demo, "verify_heartbeat(VERIFY_SESSION_USER)", code, reply, heartbeat_fields,
                COUNT(heartbeat_fields), NULL, NULL)) {
        return;
    }

    code = verify_user_recharge(client, username, CARD_RECHARGE, &reply);
    if (!finish(demo, "verify_user_recharge", code, reply, recharge_fields, COUNT(recharge_fields),
                NULL, NULL)) {
        return;
    }

    code = verify_change_bind(client, username, PASSWORD, MACHINE_B, &reply);
    if (!finish(demo, "verify_change_bind", code, reply, bind_fields, COUNT(bind_fields), NULL,
                NULL)) {
        return;
    }

    code = verify_user_login(client, username, PASSWORD, MACHINE_B, &reply);
    finish(demo, "verify_user_login(machine B)", code, reply, login_fields, COUNT(login_fields),
           NULL, NULL);
}

static void extras(struct demo *demo, verify_client *client)
{
    static const struct field bulletin_fields[] = {{"bulletin", FIELD_TEXT},
                                                   {"updated_at", FIELD_TEXT}};
    static const struct field version_fields[] = {
        {"version", FIELD_TEXT},      {"changelog", FIELD_TEXT},  {"download_url", FIELD_TEXT},
        {"force_update", FIELD_BOOL}, {"has_update", FIELD_BOOL},
    };
    static const struct field variable_fields[] = {{"variables", FIELD_JSON}};
    verify_reply *reply = NULL;
    int32_t code;

    printf("\n=== extras ===\n");

    code = verify_get_bulletin(client, &reply);
    finish(demo, "verify_get_bulletin", code, reply, bulletin_fields, COUNT(bulletin_fields), NULL,
           NULL);

    code = verify_get_latest_version(client, "1.0.0", &reply);
    finish(demo, "verify_get_latest_version", code, reply, version_fields, COUNT(version_fields),
           NULL, NULL);

    /* All variables: the object as JSON, which lists their names (one variable NAME is
     * readable as verify_reply_str(reply, "/data/variables/NAME", &value); a name may hold
     * a dot; write "~1" for a "/" in it and "~0" for a "~"). */
    code = verify_get_variables(client, &reply);
    finish(demo, "verify_get_variables", code, reply, variable_fields, COUNT(variable_fields), NULL,
           NULL);
}

/* A time of verify_reply_offline (Unix seconds), as UTC. */
static void print_time(const char *name, int64_t unix_seconds)
{
    time_t at = (time_t)unix_seconds;
    char text[32] = "?";
    const struct tm *utc = gmtime(&at);
    if (utc != NULL) {
        strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", utc);
    }
    printf("      %-14s %s\n", name, text);
}

/* The one step of `--offline-start`: the card login, with the server stopped, licensed from
 * the store. */
static void offline_start(struct demo *demo, verify_client *client)
{
    static const struct field login_fields[] = {
        {"status", FIELD_TEXT},
        {"is_times", FIELD_BOOL},
        {"card_type", FIELD_TEXT},
        {"expire_at", FIELD_TEXT},
    };
    verify_reply *reply = NULL;
    int64_t confirmed_at = 0, grace_end = 0;
    int32_t reason = 0;
    int32_t code;

    printf("\n=== offline start: card %s on machine %s, the server stopped ===\n", CARD_LOGIN,
           MACHINE_CARD);
    code = verify_single_login(client, CARD_LOGIN, MACHINE_CARD, "demo machine", &reply);
    if (code == VERIFY_OFFLINE &&
        verify_reply_offline(reply, &confirmed_at, &grace_end, &reason) == 0) {
        /* The local failure that kept the server out of reach is readable beside it. */
        print_time("confirmed_at", confirmed_at);
        print_time("grace_end", grace_end);
        printf("      %-14s %d (%s)\n", "reason", (int)reason, verify_code_describe(reason));
    }
    {
        char *last_error = take_last_error(code);
        report(demo, "verify_single_login(offline)", code, VERIFY_OFFLINE, reply, last_error,
               login_fields, COUNT(login_fields));
        free(last_error);
    }
    verify_reply_free(reply);
}

/* A client with the demo's settings: trust CA_FILE too (when given); keep the verdict in
 * STATE_DIR with 7 days of offline grace (when given). */
static int32_t new_client(const char *base_url, const char *app_id, const char *app_key,
                          const char *ca_file, const char *state_dir, verify_client **client)
{
    verify_client_options *options = NULL;
    int32_t code;
    if (ca_file == NULL && state_dir == NULL) {
        return verify_client_new(base_url, app_id, app_key, client);
    }
    code = verify_client_options_new(&options);
    if (code == VERIFY_OK && ca_file != NULL) {
        code = verify_client_options_add_root_file(options, ca_file);
    }
    if (code == VERIFY_OK && state_dir != NULL) {
        code = verify_client_options_set_state_folder(options, state_dir);
    }
    if (code == VERIFY_OK && state_dir != NULL) {
        code = verify_client_options_set_offline_grace(options, 7 * 24 * 3600);
    }
    if (code == VERIFY_OK) {
        code = verify_client_new_with_options(base_url, app_id, app_key, options, client);
    }
    verify_client_options_free(options);
    return code;
}

int main(int argc, char **argv)
{
    struct demo demo = {0, 0, {NULL}};
    verify_client *client = NULL;
    const char *positional[3] = {NULL, NULL, NULL};
    const char *base_url;
    const char *app_id = DEFAULT_APP_ID;
    const char *app_key = DEFAULT_APP_KEY;
    const char *ca_file = NULL;
    const char *state_dir = NULL;
    int offline = 0, count = 0, usage = 0;
    int32_t code;
    int i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ca") == 0 && i + 1 < argc) {
            ca_file = argv[++i];
        } else if (strcmp(argv[i], "--state") == 0 && i + 1 < argc) {
            state_dir = argv[++i];
        } else if (strcmp(argv[i], "--offline-start") == 0) {
            offline = 1;
        } else if (argv[i][0] != '-' && count < 3) {
            positional[count++] = argv[i];
        } else {
            usage = 1;
        }
    }
    if (usage || (count != 1 && count != 3) || (offline && state_dir == NULL)) {
        fprintf(stderr,
                "usage: %s BASE_URL [APP_ID APP_KEY] [--ca CA_PEM_FILE] [--state DIR "
                "[--offline-start]]\n",
                argv[0]);
        return 2;
    }
    base_url = positional[0];
    if (count == 3) {
        app_id = positional[1];
        app_key = positional[2];
    }

    printf("verify demo: library %s (ABI %u, header ABI %d), server %s, program %s\n",
           verify_version(), (unsigned)verify_abi_version(), VERIFY_ABI_VERSION, base_url, app_id);
    printf("messages for the user in %s (verify_language: the machine's language)\n",
           verify_language());
    if (verify_abi_version() != VERIFY_ABI_VERSION) {
        fprintf(stderr, "demo: the library's ABI version differs from the header's\n");
        return 1;
    }

    /* The AppKey goes to the library only; it is never printed. With a CA file, the client
     * trusts it in addition to Mozilla's roots (an https sandbox, a company CA). */
    code = new_client(base_url, app_id, app_key, ca_file, state_dir, &client);
    {
        char *last_error = take_last_error(code);
        int ok = report(&demo, "verify_client_new", code, VERIFY_OK, NULL, last_error, NULL, 0);
        free(last_error);
        if (!ok) {
            printf("\nFAILED: verify_client_new; nothing else can run\n");
            return 1;
        }
    }

    if (offline) {
        offline_start(&demo, client);
    } else {
        card_mode(&demo, client);
        account_mode(&demo, client);
        extras(&demo, client);
    }

    verify_client_free(client);

    if (demo.failures == 0) {
        printf("\nPASSED: all %d steps got their expected code\n", demo.steps);
        return 0;
    }
    printf("\nFAILED: %d of %d steps did not get their expected code:", demo.failures, demo.steps);
    for (i = 0; i < demo.failures && i < MAX_FAILURES; i++) {
        printf(" %s", demo.failed[i]);
    }
    printf("\n");
    return 1;
}
