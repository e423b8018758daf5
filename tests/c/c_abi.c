/*
 * c_abi.c: the C ABI as a C host calls it (run by tests/c/abi.rs, under valgrind).
 *
 *   c_abi list                                   the calls of the misuse table, one a line
 *   c_abi misuse                                 bad input of every kind for every call
 *   c_abi construction                           verify_client_new, timeouts, verify_call
 *   c_abi accessors BASE_URL APP_ID APP_KEY CARD  reply accessors on a real reply, a refusal
 *   c_abi variables BASE_URL APP_ID APP_KEY      verify_call, variables (a key with a dot),
 *                                                a pending social poll
 *   c_abi unreachable BASE_URL                   a stopped server: a local code, no reply
 *   c_abi versions VERSION                       descriptions, verify_version, ABI version
 *   c_abi init BASE_URL APP_ID APP_KEY           the Init reply never shows the secret
 *   c_abi probing BASE_URL APP_ID APP_KEY        absent fields leave the last error alone
 *   c_abi options BASE_URL DEAD_URL APP_ID APP_KEY CARD
 *                                                client options: setters refuse bad input; a
 *                                                mirror answers for a dead server; the log
 *                                                callback never sees a secret
 *   c_abi codepage BASE_URL APP_ID APP_KEY       only UTF-8 outside Windows: other code pages
 *                                                refused with a message saying why
 *   c_abi contracts BASE_URL APP_ID APP_KEY CARD FILE
 *                                                every argument checked as its doc says: a
 *                                                table of bad values per function (FILE is a
 *                                                regular file, given as a state folder;
 *                                                c_abi_contracts.c)
 *
 * Built from c_abi.c and c_abi_contracts.c (c_abi.h: what they share).
 */

#include "c_abi.h"

/*
 * The misuse table: every call that takes a client, strings and `verify_reply **out`.
 * One line each: the name (without verify_), which string arguments are required ('R') or
 * optional ('O'), and the call with the strings a[0], a[1], ..., the client c and out o.
 * tests/c/abi.rs checks that every such function of verify.h is in this table.
 */
#define CALLS(X)                                                                                   \
    X(init, "", verify_init(c, o))                                                                 \
    X(call, "R", verify_call(c, a[0], NULL, NULL, 0, o))                                           \
    X(social_login_wait, "RO", verify_social_login_wait(c, a[0], a[1], 10, 10, NULL, o))           \
    X(single_login, "RRO", verify_single_login(c, a[0], a[1], a[2], o))                            \
    X(user_login, "RRO", verify_user_login(c, a[0], a[1], a[2], o))                                \
    X(user_login_with_card, "RRRO", verify_user_login_with_card(c, a[0], a[1], a[2], a[3], o))     \
    X(user_register, "RROOO", verify_user_register(c, a[0], a[1], a[2], a[3], a[4], o))            \
    X(update_password, "RRR", verify_update_password(c, a[0], a[1], a[2], o))                      \
    X(change_bind, "RRR", verify_change_bind(c, a[0], a[1], a[2], o))                              \
    X(heartbeat, "RO", verify_heartbeat(c, a[0], VERIFY_SESSION_CARD, a[1], o))                    \
    X(user_recharge, "RR", verify_user_recharge(c, a[0], a[1], o))                                 \
    X(get_latest_version, "O", verify_get_latest_version(c, a[0], o))                              \
    X(get_bulletin, "", verify_get_bulletin(c, o))                                                 \
    X(get_variable, "R", verify_get_variable(c, a[0], o))                                          \
    X(get_variables, "", verify_get_variables(c, o))                                               \
    X(get_user_info, "RR", verify_get_user_info(c, a[0], a[1], o))                                 \
    X(get_card_info, "R", verify_get_card_info(c, a[0], o))                                        \
    X(social_login_start, "O", verify_social_login_start(c, a[0], o))                              \
    X(social_login_poll, "RO", verify_social_login_poll(c, a[0], a[1], o))                         \
    X(social_register_start, "ROO", verify_social_register_start(c, a[0], a[1], a[2], o))

typedef int32_t (*call_fn)(const verify_client *c, const char *const *a, verify_reply **o);

struct call {
    const char *name;
    const char *params; /* 'R' required, 'O' optional, one letter per string argument */
    call_fn run;
};

#define WRAP(name, params, expression)                                                             \
    static int32_t call_##name(const verify_client *c, const char *const *a, verify_reply **o)     \
    {                                                                                              \
        (void)a;                                                                                   \
        return expression;                                                                         \
    }
CALLS(WRAP)
#undef WRAP

#define ENTRY(name, params, expression) {#name, params, call_##name},
static const struct call calls[] = {CALLS(ENTRY)};
#undef ENTRY

#define MAX_ARGS 8

/* Bad strings of every kind. */
static const char INVALID_UTF8[] = "\xff\xfe";
static const char OVERLONG_SLASH[] = "\xc0\xaf"; /* "/" in two bytes: not UTF-8 */
static const char SURROGATE[] = "\xed\xa0\x80"; /* U+D800 encoded: not UTF-8 */
static const char TRUNCATED[] = "ok\xe4\xbd"; /* a three-byte sequence cut short */
#define OVER_LIMIT_LEN (65536 + 1) /* longer than the documented 65536 */

/* Calls `call` with `bad` as argument `at` (others valid) and checks the refusal: the code,
 * *out cleared (it held garbage), and the last error with a message. */
static void refused(const struct call *call, const verify_client *client, size_t at,
                    const char *bad, int32_t expected, const char *label)
{
    const char *args[MAX_ARGS];
    size_t arity = strlen(call->params), i;
    int garbage = 0;
    verify_reply *out = (verify_reply *)(void *)&garbage; /* the call must set it to NULL */
    int32_t code;
    for (i = 0; i < arity; i++) {
        args[i] = "valid";
    }
    args[at] = bad;
    code = call->run(client, args, &out);
    if (!host_check_int(code, expected, label, __FILE__, __LINE__)) {
        printf("      in verify_%s, argument %lu\n", call->name, (unsigned long)at);
    }
    if (!host_check(out == NULL, "*out is NULL when nothing was answered", __FILE__, __LINE__)) {
        printf("      in verify_%s, argument %lu (%s)\n", call->name, (unsigned long)at, label);
        if (out != (verify_reply *)(void *)&garbage) {
            verify_reply_free(out);
        }
    }
    CHECK_INT(verify_last_error_code(), expected);
    CHECK(verify_last_error_message()[0] != '\0');
}

static int misuse(void)
{
    verify_client *client = NULL;
    char *huge = (char *)malloc(OVER_LIMIT_LEN + 1);
    size_t n;

    /* Nothing of this reaches a server: every argument is checked before sending. */
    CHECK_INT(verify_client_new("http://127.0.0.1:9", "app", "key", &client), VERIFY_OK);
    if (client == NULL || huge == NULL) {
        free(huge);
        return host_finish("misuse");
    }
    memset(huge, 'x', OVER_LIMIT_LEN);
    huge[OVER_LIMIT_LEN] = '\0';

    for (n = 0; n < COUNT(calls); n++) {
        const struct call *call = &calls[n];
        const char *args[MAX_ARGS];
        size_t arity = strlen(call->params), at, i;
        verify_reply *out = NULL;

        for (at = 0; at < arity; at++) {
            refused(call, client, at, INVALID_UTF8, VERIFY_ERR_INVALID_UTF8, "invalid UTF-8");
            refused(call, client, at, OVERLONG_SLASH, VERIFY_ERR_INVALID_UTF8, "overlong form");
            refused(call, client, at, SURROGATE, VERIFY_ERR_INVALID_UTF8, "surrogate");
            refused(call, client, at, TRUNCATED, VERIFY_ERR_INVALID_UTF8, "truncated sequence");
            refused(call, client, at, huge, VERIFY_ERR_INVALID_ARGUMENT, "over 65536 bytes");
            if (call->params[at] == 'R') {
                refused(call, client, at, NULL, VERIFY_ERR_INVALID_ARGUMENT, "required NULL");
                refused(call, client, at, "", VERIFY_ERR_INVALID_ARGUMENT, "required empty");
            }
        }
        for (i = 0; i < arity; i++) {
            args[i] = "valid";
        }
        out = NULL;
        if (!CHECK_INT(call->run(NULL, args, &out), VERIFY_ERR_INVALID_ARGUMENT)) {
            printf("      verify_%s with a NULL client\n", call->name);
        }
        CHECK(out == NULL);
        if (!CHECK_INT(call->run(client, args, NULL), VERIFY_ERR_INVALID_ARGUMENT)) {
            printf("      verify_%s with a NULL out\n", call->name);
        }
        /* An empty optional string is the same as NULL: accepted, so the call goes out and
         * meets the closed port (a network error, never an argument error). */
        for (at = 0; at < arity; at++) {
            if (call->params[at] == 'O') {
                for (i = 0; i < arity; i++) {
                    args[i] = "valid";
                }
                args[at] = "";
                out = NULL;
                if (!CHECK_INT(call->run(client, args, &out), VERIFY_ERR_NETWORK)) {
                    printf("      verify_%s with argument %lu empty\n", call->name,
                           (unsigned long)at);
                }
                CHECK(out == NULL);
                verify_reply_free(out);
            }
        }
    }
    free(huge);
    verify_client_free(client);
    return host_finish("misuse");
}

/* The call must refuse with `expected` and a message; *out stays NULL. */
static void client_new_refused(const char *url, const char *id, const char *key, int32_t expected,
                               const char *mentions)
{
    verify_client *out = NULL;
    int32_t code = verify_client_new(url, id, key, &out);
    if (!CHECK_INT(code, expected)) {
        printf("      verify_client_new(\"%s\", \"%s\", \"%s\")\n", url ? url : "NULL",
               id ? id : "NULL", key ? key : "NULL");
    }
    CHECK(out == NULL);
    verify_client_free(out);
    CHECK_INT(verify_last_error_code(), expected);
    CHECK(verify_last_error_message()[0] != '\0');
    if (mentions != NULL && !CHECK(strstr(verify_last_error_message(), mentions) != NULL)) {
        printf("      the message of \"%s\" does not mention \"%s\"\n", url, mentions);
    }
    printf("      %-40s -> %d: %s\n", url ? url : "NULL", (int)code, verify_last_error_message());
}

static int construction(void)
{
    static const char OK_URL[] = "http://127.0.0.1:9";
    const char *keys[2];
    const char *values[2];
    const char *action_key[1];
    verify_client *client = NULL;
    verify_reply *reply = NULL;

    client_new_refused(NULL, "a", "k", VERIFY_ERR_INVALID_ARGUMENT, NULL);
    client_new_refused(OK_URL, NULL, "k", VERIFY_ERR_INVALID_ARGUMENT, NULL);
    client_new_refused(OK_URL, "a", NULL, VERIFY_ERR_INVALID_ARGUMENT, NULL);
    client_new_refused("ftp://x", "a", "k", VERIFY_ERR_INVALID_ARGUMENT, "base_url");
    client_new_refused(OK_URL, "", "k", VERIFY_ERR_INVALID_ARGUMENT, NULL);
    client_new_refused("http://\xff", "a", "k", VERIFY_ERR_INVALID_UTF8, NULL);
    /* ABI 2: the base URL is parsed in full at construction. */
    client_new_refused("http://b\xc3\xbc"
                       "cher.example",
                       "a", "k", VERIFY_ERR_INVALID_ARGUMENT, "base_url");
    client_new_refused("http://h:99999", "a", "k", VERIFY_ERR_INVALID_ARGUMENT, "base_url");
    client_new_refused("http://h:0", "a", "k", VERIFY_ERR_INVALID_ARGUMENT, "base_url");
    client_new_refused("http://user:pw@h", "a", "k", VERIFY_ERR_INVALID_ARGUMENT, "base_url");
    client_new_refused("http://h/?q=1", "a", "k", VERIFY_ERR_INVALID_ARGUMENT, "base_url");
    client_new_refused("http://h/#f", "a", "k", VERIFY_ERR_INVALID_ARGUMENT, "base_url");
    client_new_refused("http://h/api/verify", "a", "k", VERIFY_ERR_INVALID_ARGUMENT, "base_url");
    CHECK_INT(verify_client_new(OK_URL, "a", "k", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    /* Accepted forms: a path prefix, IPv6, a port at the ends of the range. */
    {
        static const char *const accepted[] = {"http://127.0.0.1:9/prefix", "http://[::1]:65535",
                                               "https://example.invalid:1", "http://localhost"};
        size_t i;
        for (i = 0; i < COUNT(accepted); i++) {
            verify_client *ok = NULL;
            if (!CHECK_INT(verify_client_new(accepted[i], "a", "k", &ok), VERIFY_OK)) {
                printf("      \"%s\" refused\n", accepted[i]);
            }
            verify_client_free(ok);
        }
    }

    client = host_client(OK_URL, "app", "key");
    CHECK_INT(verify_client_set_timeouts(client, 0, 1000), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_client_set_timeouts(client, 1000, 0), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_client_set_timeouts(NULL, 1, 1), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_client_set_timeouts(client, 500, UINT32_MAX), VERIFY_OK);
    CHECK_INT(verify_client_set_timeouts(client, UINT32_MAX, UINT32_MAX), VERIFY_OK);

    CHECK_INT(verify_heartbeat(client, "t", 0, NULL, &reply), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_heartbeat(client, "t", 3, NULL, &reply), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(strstr(verify_last_error_message(), "VERIFY_SESSION_CARD") != NULL);
    CHECK(reply == NULL);

    keys[0] = "k";
    keys[1] = NULL;
    values[0] = "v";
    values[1] = "v";
    action_key[0] = "action";
    CHECK_INT(verify_call(client, "GetVariable", NULL, values, 1, &reply),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_call(client, "GetVariable", keys, NULL, 1, &reply),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_call(client, "GetVariable", keys, values, 2, &reply),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_call(client, "GetVariable", keys, values, 100000, &reply),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_call(client, "GetVariable", action_key, values, 1, &reply),
              VERIFY_ERR_INVALID_ARGUMENT);
    keys[0] = "\xff";
    CHECK_INT(verify_call(client, "GetVariable", keys, values, 1, &reply), VERIFY_ERR_INVALID_UTF8);
    keys[0] = "";
    CHECK_INT(verify_call(client, "GetVariable", keys, values, 1, &reply),
              VERIFY_ERR_INVALID_ARGUMENT);
    keys[0] = "k";
    values[0] = SURROGATE;
    CHECK_INT(verify_call(client, "GetVariable", keys, values, 1, &reply), VERIFY_ERR_INVALID_UTF8);
    CHECK(reply == NULL);

    verify_client_free(client);
    verify_client_free(NULL);
    verify_reply_free(NULL);
    return host_finish("construction");
}

static int accessors(const char *base_url, const char *app_id, const char *app_key,
                     const char *card)
{
    static const char MAC[] = "FFI-MACHINE";
    verify_client *client = host_client(base_url, app_id, app_key);
    verify_reply *reply = NULL;
    const char *text = NULL;
    const char *again = NULL;
    const char *untouched = "untouched";
    int64_t number = 0;
    size_t count = 0;
    int32_t flag = -1;
    int64_t seconds = 0;
    int64_t read_again = 0;
    int32_t offset = 0;
    int32_t before_code;
    char *before_message;

    CHECK_INT(verify_single_login(client, card, MAC, NULL, &reply), VERIFY_OK);
    if (!CHECK(reply != NULL)) {
        verify_client_free(client);
        return host_finish("accessors");
    }
    CHECK_INT(verify_reply_code(reply), VERIFY_OK);
    CHECK(verify_reply_message(reply) != NULL);

    CHECK_INT(verify_reply_str(reply, "/data/token", &text), 0);
    CHECK(text != NULL && strlen(text) == 40);
    CHECK_INT(verify_reply_int(reply, "/data/remaining", &number), 0);
    CHECK_INT(number, 2);
    CHECK_INT(verify_reply_int(reply, "/data/total", &number), 0);
    CHECK_INT(number, 3);
    CHECK_INT(verify_reply_bool(reply, "/data/is_times", &flag), 0);
    CHECK_INT(flag, 1);
    CHECK_INT(verify_reply_str(reply, "/data/is_times", &text), 0);
    CHECK_STR(text, "true");
    CHECK_INT(verify_reply_str(reply, "/data/total", &text), 0);
    CHECK_STR(text, "3");
    /* Pointers start at the top of the reply. */
    CHECK_INT(verify_reply_int(reply, "/code", &number), 0);
    CHECK_INT(number, 200);
    CHECK_INT(verify_reply_str(reply, "/code", &text), 0);
    CHECK_STR(text, "200");
    CHECK_INT(verify_reply_str(reply, "/message", &text), 0);
    CHECK_STR(text, verify_reply_message(reply));
    /* The same borrowed string is handed out again, valid until the reply is freed. */
    CHECK_INT(verify_reply_str(reply, "/data/token", &text), 0);
    CHECK_INT(verify_reply_str(reply, "/data/token", &again), 0);
    CHECK(text == again);

    /* verify_reply_json: the whole reply (NULL or ""), or the value at a pointer. */
    CHECK_INT(verify_reply_json(reply, NULL, &text), 0);
    CHECK(text != NULL && strstr(text, "\"code\":200") != NULL);
    CHECK_INT(verify_reply_json(reply, "", &again), 0);
    CHECK_STR(again, text);
    CHECK_INT(verify_reply_json(reply, "/data", &text), 0);
    CHECK(text != NULL && text[0] == '{' && strstr(text, "\"token\"") != NULL &&
          strstr(text, "\"code\"") == NULL);
    CHECK_INT(verify_reply_json(reply, "/data/total", &text), 0);
    CHECK_STR(text, "3");
    CHECK_INT(verify_reply_json(reply, "/data/status", &text), 0);
    CHECK_STR(text, "\"active\"");

    /* The service's times as numbers (read by the library): Unix seconds and the offset the
     * service wrote them in, UTC+08:00; the same from the text. */
    CHECK_INT(verify_reply_time(reply, "/data/expire_at", &seconds, &offset), 0);
    CHECK_INT(offset, 28800);
    CHECK_INT(verify_reply_str(reply, "/data/expire_at", &text), 0);
    CHECK_INT(verify_service_time(text, &read_again, NULL), 0);
    CHECK_INT(read_again, seconds);
    CHECK_INT(verify_service_time("2099-03-04 05:06:07", &seconds, &offset), 0);
    CHECK_INT(seconds, 4076255167LL);
    CHECK_INT(verify_service_time("2099-02-30 00:00:00", &seconds, NULL), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_service_time("2099-03-04T05:06:07", &seconds, NULL), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_time(reply, "/data/token", &seconds, NULL), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(seconds, 4076255167LL);
    CHECK_INT(verify_reply_time(reply, "/data/expire_at", NULL, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_service_time(NULL, &seconds, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_service_time("2099-03-04 05:06:07", NULL, NULL), VERIFY_ERR_INVALID_ARGUMENT);

    /* Absent, or of another type: VERIFY_ERR_NO_SUCH_FIELD, *out and the last error untouched.
     * First a failure of our own, so that there is a last error to keep. */
    CHECK_INT(verify_reply_code(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    before_code = verify_last_error_code();
    before_message = host_last_error_copy();
    text = untouched;
    number = 77;
    flag = 5;
    CHECK_INT(verify_reply_str(reply, "/data/no_such_field", &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_str(reply, "/data", &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_str(reply, "/data/token/0", &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK(text == untouched);
    CHECK_INT(verify_reply_int(reply, "/data/token", &number), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_int(reply, "/data/is_times", &number), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(number, 77);
    CHECK_INT(verify_reply_bool(reply, "/data/nope", &flag), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_bool(reply, "/data/total", &flag), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(flag, 5);
    CHECK_INT(verify_reply_json(reply, "/data/nope", &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK(text == untouched);
    count = 77;
    CHECK_INT(verify_reply_member_count(reply, "/data/nope", &count), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_member_count(reply, "/data/token", &count), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_array_length(reply, "/data", &count), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_member_name(reply, "/data/token", 0, &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(count, 77);
    CHECK(text == untouched);
    CHECK_INT(verify_last_error_code(), before_code);
    CHECK_STR(verify_last_error_message(), before_message);
    free(before_message);

    /* Bad arguments: negative codes with a last error, never a crash. */
    CHECK_INT(verify_reply_str(reply, NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_last_error_code(), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_str(reply, "/data/\xff", &text), VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_last_error_code(), VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_reply_str(reply, "/data/token", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_str(reply, "token", &text), VERIFY_ERR_INVALID_ARGUMENT);
    /* ABI 1's dotted form is refused with a message naming the pointer to write instead. */
    CHECK(strstr(verify_last_error_message(), "/data/token") != NULL);
    CHECK(text == untouched);
    CHECK_INT(verify_reply_int(reply, NULL, &number), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_int(reply, "/data/total", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_bool(reply, NULL, &flag), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_bool(reply, "/data/is_times", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_json(reply, "/data", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_json(reply, "data", &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_json(reply, "\xff", &text), VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_reply_member_count(reply, NULL, &count), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_member_count(reply, "/data", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_member_count(reply, "data", &count), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_member_count(NULL, "/data", &count), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_member_name(reply, NULL, 0, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_member_name(reply, "/data", 0, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_member_name(reply, "data", 0, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_member_name(NULL, "/data", 0, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_member_name(reply, "\xff", 0, &text), VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_reply_array_length(reply, NULL, &count), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_array_length(reply, "/data", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_array_length(reply, "data", &count), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_array_length(NULL, "/data", &count), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_code(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(verify_reply_message(NULL) == NULL);
    CHECK_INT(verify_last_error_code(), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_str(NULL, "/data/token", &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_int(NULL, "/data/total", &number), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_bool(NULL, "/data/is_times", &flag), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_json(NULL, NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(text == untouched);
    CHECK_INT(number, 77);
    CHECK_INT(flag, 5);
    verify_reply_free(reply);
    reply = NULL;

    /* A refusal still gives a reply, with the remark readable. */
    host_ask("disable-device FFI-MACHINE", NULL, 0);
    CHECK_INT(verify_single_login(client, card, MAC, NULL, &reply), VERIFY_DISABLED);
    if (CHECK(reply != NULL)) {
        CHECK_INT(verify_reply_code(reply), VERIFY_DISABLED);
        text = NULL;
        CHECK_INT(verify_reply_str(reply, "/data/remark", &text), 0);
        CHECK_STR(text,
                  "\xe8\xae\xbe\xe5\xa4\x87\xe5\xb7\xb2\xe7\xa6\x81\xe7\x94\xa8"); /* 设备已禁用 */
        CHECK_INT(verify_last_error_code(), VERIFY_DISABLED);
        CHECK(strstr(verify_last_error_message(),
                     "\xe8\xae\xbe\xe5\xa4\x87\xe5\xb7\xb2\xe7\xa6\x81\xe7\x94\xa8") != NULL);
        verify_reply_free(reply);
    }
    verify_client_free(client);
    return host_finish("accessors");
}

static int variables(const char *base_url, const char *app_id, const char *app_key)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    verify_reply *reply = NULL;
    const char *keys[1];
    const char *values[1];
    const char *text = NULL;
    const char *untouched = "untouched";
    static const char *const names[] = {"a.b", "greeting", "limit", "t~z", "x/y"};
    size_t count = 0;
    size_t index;
    char *state;

    keys[0] = "Name";
    values[0] = "limit";
    CHECK_INT(verify_call(client, "GetVariable", keys, values, 1, &reply), VERIFY_OK);
    CHECK_INT(verify_reply_str(reply, "/data/value", &text), 0);
    CHECK_STR(text, "5");
    verify_reply_free(reply);

    /* One variable whose name holds a dot: ABI 1's dotted paths could not name it. */
    CHECK_INT(verify_get_variable(client, "a.b", &reply), VERIFY_OK);
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/value", &text), 0);
    CHECK_STR(text, "dotted");
    verify_reply_free(reply);

    CHECK_INT(verify_get_variables(client, &reply), VERIFY_OK);
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/variables/limit", &text), 0);
    CHECK_STR(text, "5");
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/variables/a.b", &text), 0);
    CHECK_STR(text, "dotted");
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/variables/x~1y", &text), 0); /* key "x/y" */
    CHECK_STR(text, "slash");
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/variables/t~0z", &text), 0); /* key "t~z" */
    CHECK_STR(text, "tilde");
    CHECK_INT(verify_reply_str(reply, "/data/variables/a", &text), VERIFY_ERR_NO_SUCH_FIELD);
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/variables/greeting", &text), 0);
    CHECK_STR(text, "\xe4\xbd\xa0\xe5\xa5\xbd & welcome"); /* 你好 & welcome */
    /* The object as JSON lists every name. */
    text = NULL;
    CHECK_INT(verify_reply_json(reply, "/data/variables", &text), 0);
    CHECK(text != NULL && text[0] == '{' && strstr(text, "\"a.b\":\"dotted\"") != NULL &&
          strstr(text, "\"limit\":\"5\"") != NULL);
    CHECK_INT(verify_reply_json(reply, "/data/variables/a.b", &text), 0);
    CHECK_STR(text, "\"dotted\"");
    /* The object's member names, in the order of their bytes, borrowed from the reply. */
    CHECK_INT(verify_reply_member_count(reply, "/data/variables", &count), 0);
    CHECK_INT(count, 5);
    for (index = 0; index < count && index < 5; index++) {
        text = NULL;
        CHECK_INT(verify_reply_member_name(reply, "/data/variables", index, &text), 0);
        CHECK_STR(text, names[index]);
    }
    text = untouched;
    CHECK_INT(verify_reply_member_name(reply, "/data/variables", 5, &text),
              VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_member_name(reply, "/data/variables/limit", 0, &text),
              VERIFY_ERR_NO_SUCH_FIELD);
    CHECK(text == untouched);
    CHECK_INT(verify_reply_member_count(reply, "", &count), 0);
    CHECK(count >= 3); /* code, message, data */
    CHECK_INT(verify_reply_array_length(reply, "/data/variables", &count),
              VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_member_count(reply, "/data/variables/limit", &count),
              VERIFY_ERR_NO_SUCH_FIELD);
    verify_reply_free(reply);

    CHECK_INT(verify_social_login_start(client, NULL, &reply), VERIFY_OK);
    state = host_reply_copy(reply, "/data/state");
    CHECK(state != NULL);
    verify_reply_free(reply);
    if (state != NULL) {
        CHECK_INT(verify_social_login_poll(client, state, NULL, &reply), VERIFY_PENDING);
        CHECK(reply != NULL);
        CHECK_INT(verify_reply_code(reply), VERIFY_PENDING);
        verify_reply_free(reply);
        free(state);
    }
    verify_client_free(client);
    return host_finish("variables");
}

static int unreachable(const char *base_url)
{
    verify_client *client = host_client(base_url, "app", "key");
    int garbage = 0;
    verify_reply *reply = (verify_reply *)(void *)&garbage;
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_ERR_NETWORK);
    CHECK(reply == NULL);
    CHECK_INT(verify_last_error_code(), VERIFY_ERR_NETWORK);
    CHECK(verify_last_error_message()[0] != '\0');
    printf("      unreachable: %s\n", verify_last_error_message());
    verify_client_free(client);
    return host_finish("unreachable");
}

static int versions(const char *version)
{
    static const int32_t codes[] = {
        200,  201,  1001, 1003, 1004, 1005, 1006, 1007, 1010, 1011, 1012, 1013,      1014,
        1015, 1016, 1017, 1019, 1020, 1021, 1022, 1023, 1024, -1,   -2,   -3,        -4,
        -5,   -6,   -7,   -8,   -9,   -10,  -11,  -12,  0,    42,   -13,  INT32_MIN, INT32_MAX};
    size_t i;
    for (i = 0; i < COUNT(codes); i++) {
        const char *described = verify_code_describe(codes[i]);
        if (!CHECK(described != NULL && described[0] != '\0')) {
            printf("      code %ld\n", (long)codes[i]);
        }
    }
    /* Codes of the table are told apart. */
    CHECK(strcmp(verify_code_describe(VERIFY_ERR_SYSTEM), verify_code_describe(VERIFY_ERR_PANIC)) !=
          0);
    CHECK(strcmp(verify_code_describe(VERIFY_OK), verify_code_describe(VERIFY_PENDING)) != 0);
    CHECK_STR(verify_version(), version);
    CHECK_INT(VERIFY_ABI_VERSION, 2);
    CHECK_INT(verify_abi_version(), VERIFY_ABI_VERSION);
    CHECK_INT(VERIFY_MACHINE_CODE_LEN, 32);
    /* A thread that never failed has no last error. */
    CHECK_INT(verify_last_error_code(), 0);
    CHECK_STR(verify_last_error_message(), "");
    printf("      library %s, ABI %u\n", verify_version(), (unsigned)verify_abi_version());
    /* The panic self-test: a panic inside the library comes back as its code, only when asked. */
    CHECK_INT(verify_panic_self_test(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_panic_self_test("PANIC"), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_panic_self_test("panic"), VERIFY_ERR_PANIC);
    CHECK_INT(verify_last_error_code(), VERIFY_ERR_PANIC);
    CHECK(strstr(verify_last_error_message(), "verify_panic_self_test") != NULL);
    CHECK_INT(verify_abi_version(), VERIFY_ABI_VERSION);
    return host_finish("versions");
}

static int init(const char *base_url, const char *app_id, const char *app_key)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    verify_reply *reply = NULL;
    const char *text = NULL;
    CHECK_INT(verify_init(client, &reply), VERIFY_OK);
    CHECK_INT(verify_reply_str(reply, "/data/api_password", &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_json(reply, "/data/api_password", &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_json(reply, NULL, &text), 0);
    CHECK(text != NULL && strstr(text, "api_password") == NULL);
    if (text != NULL) {
        printf("      the Init reply: %s\n", text);
    }
    verify_reply_free(reply);
    /* The client kept the secret all the same: actions work. */
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    verify_reply_free(reply);
    verify_client_free(client);
    return host_finish("init");
}

static int probing(const char *base_url, const char *app_id, const char *app_key)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    verify_reply *reply = NULL;
    const char *text = NULL;
    int64_t number = 0;
    int32_t flag = 0;
    int32_t before_code;
    char *before_message;

    CHECK_INT(verify_get_card_info(client, "NONE-XIST-0000-0000", &reply), VERIFY_CARD_INVALID);
    CHECK(reply != NULL);
    before_code = verify_last_error_code();
    before_message = host_last_error_copy();
    CHECK_INT(before_code, VERIFY_CARD_INVALID);
    CHECK(before_message != NULL && before_message[0] != '\0');
    CHECK_INT(verify_reply_str(reply, "/data/remark", &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_int(reply, "/data/remark", &number), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_bool(reply, "/data/remark", &flag), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_json(reply, "/data/remark", &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_last_error_code(), before_code);
    CHECK_STR(verify_last_error_message(), before_message);
    verify_reply_free(reply);

    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    CHECK_INT(verify_reply_str(reply, "/data/bulletin", &text), 0);
    CHECK_STR(text, "\xe5\x85\xac\xe5\x91\x8a bulletin"); /* 公告 bulletin */
    CHECK_INT(verify_reply_str(reply, "/data/nothing", &text), VERIFY_ERR_NO_SUCH_FIELD);
    /* A success does not clear the last error either. */
    CHECK_INT(verify_last_error_code(), before_code);
    CHECK_STR(verify_last_error_message(), before_message);
    free(before_message);
    verify_reply_free(reply);
    verify_client_free(client);
    return host_finish("probing");
}

/* What the log callback saw: how many lines, and whether one held a secret. */
struct log_seen {
    int lines;
    int secret;
    const char *secrets[4];
};

static void VERIFY_CALL log_line(void *user_data, int32_t level, const char *message)
{
    struct log_seen *seen = (struct log_seen *)user_data;
    size_t i;
    seen->lines++;
    if (level < VERIFY_LOG_ERROR || message == NULL) {
        seen->secret = 1; /* counted as a failure below: a level or message out of contract */
        return;
    }
    for (i = 0; i < COUNT(seen->secrets); i++) {
        if (seen->secrets[i] != NULL && strstr(message, seen->secrets[i]) != NULL) {
            seen->secret = 1;
        }
    }
    printf("      log %d: %s\n", (int)level, message);
}

static void options_refused(int32_t code, int32_t expected, const char *what)
{
    if (!host_check_int(code, expected, what, __FILE__, __LINE__)) {
        return;
    }
    CHECK_INT(verify_last_error_code(), expected);
    CHECK(verify_last_error_message()[0] != '\0');
}

/* Client options: every setter refuses bad input; a client made with them fails over to a
 * mirror and logs without a secret. */
static int options(const char *base_url, const char *dead_url, const char *app_id,
                   const char *app_key, const char *card)
{
    static const char PIN[] = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="; /* 32 bytes */
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    struct log_seen seen;
    char token_head[8];
    char *token;

    memset(&seen, 0, sizeof seen);
    options_refused(verify_client_options_new(NULL), VERIFY_ERR_INVALID_ARGUMENT, "new(NULL)");
    CHECK_INT(verify_client_options_new(&options), VERIFY_OK);
    if (options == NULL) {
        return host_finish("options");
    }
#define REFUSED(call, expected) options_refused((call), (expected), #call)
    /* NULL options for every setter. */
    REFUSED(verify_client_options_add_mirror(NULL, base_url), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_trust(NULL, VERIFY_TRUST_MOZILLA),
            VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_root_pem(NULL, "x"), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_root_file(NULL, "/etc/hostname"),
            VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_pin(NULL, PIN), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_proxy(NULL, VERIFY_PROXY_NONE, NULL),
            VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_allow_insecure_http(NULL, 1), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_timeouts(NULL, 1, 1), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_log(NULL, log_line, &seen), VERIFY_ERR_INVALID_ARGUMENT);
    /* Bad strings and values. */
    REFUSED(verify_client_options_add_mirror(options, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_mirror(options, "\xff"), VERIFY_ERR_INVALID_UTF8);
    REFUSED(verify_client_options_set_trust(options, 4), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_trust(options, UINT32_MAX), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_root_pem(options, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_root_pem(options, "not a certificate"),
            VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_root_pem(options, "-----BEGIN CERTIFICATE-----\nAAAA\n"
                                                        "-----END CERTIFICATE-----\n"),
            VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_root_pem(options, SURROGATE), VERIFY_ERR_INVALID_UTF8);
    REFUSED(verify_client_options_add_root_file(options, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_root_file(options, "/nonexistent/verify-roots.pem"),
            VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_pin(options, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_pin(options, ""), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_pin(options, "not base64!"), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_add_pin(options, "AAAA"), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_proxy(options, 7, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_proxy(options, -1, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_proxy(options, VERIFY_PROXY_URL, NULL),
            VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_proxy(options, VERIFY_PROXY_URL, ""),
            VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_proxy(options, VERIFY_PROXY_NONE, "http://p:8080"),
            VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_proxy(options, VERIFY_PROXY_URL, "\xff"),
            VERIFY_ERR_INVALID_UTF8);
    REFUSED(verify_client_options_allow_insecure_http(options, 2), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_allow_insecure_http(options, -1), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_timeouts(options, 0, 1000), VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_options_set_timeouts(options, 1000, 0), VERIFY_ERR_INVALID_ARGUMENT);
    /* Accepted values. */
    CHECK_INT(verify_client_options_add_pin(options, PIN), VERIFY_OK);
    CHECK_INT(verify_client_options_set_trust(options, VERIFY_TRUST_MOZILLA | VERIFY_TRUST_SYSTEM),
              VERIFY_OK);
    CHECK_INT(verify_client_options_set_trust(options, 0), VERIFY_OK); /* the pin remains */
    CHECK_INT(verify_client_options_set_trust(options, VERIFY_TRUST_MOZILLA), VERIFY_OK);
    CHECK_INT(verify_client_options_set_proxy(options, VERIFY_PROXY_URL, "socks5h://127.0.0.1:9"),
              VERIFY_OK);
    CHECK_INT(verify_client_options_set_proxy(options, VERIFY_PROXY_SYSTEM, NULL), VERIFY_OK);
    CHECK_INT(verify_client_options_set_proxy(options, VERIFY_PROXY_NONE, NULL), VERIFY_OK);
    CHECK_INT(verify_client_options_allow_insecure_http(options, 0), VERIFY_OK);
    CHECK_INT(verify_client_options_set_timeouts(options, UINT32_MAX, UINT32_MAX), VERIFY_OK);
    CHECK_INT(verify_client_options_set_timeouts(options, 2000, 10000), VERIFY_OK);
    CHECK_INT(verify_client_options_set_log(options, NULL, NULL), VERIFY_OK);
    CHECK_INT(verify_client_options_set_log(options, log_line, &seen), VERIFY_OK);
    verify_client_options_free(NULL);

    /* verify_client_new_with_options checks what it is given. */
    REFUSED(verify_client_new_with_options(base_url, app_id, app_key, options, NULL),
            VERIFY_ERR_INVALID_ARGUMENT);
    REFUSED(verify_client_new_with_options("http://h:99999", app_id, app_key, options, &client),
            VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(client == NULL);
    REFUSED(
        verify_client_new_with_options("http://verify.example", app_id, app_key, options, &client),
        VERIFY_ERR_INVALID_ARGUMENT); /* plain http beyond loopback, not allowed */
    CHECK(strstr(verify_last_error_message(), "http") != NULL);
    CHECK(client == NULL);
    {
        verify_client_options *insecure = NULL;
        verify_client_options *no_trust = NULL;
        verify_client_options *bad_mirror = NULL;
        verify_client *other = NULL;
        CHECK_INT(verify_client_options_new(&insecure), VERIFY_OK);
        CHECK_INT(verify_client_options_allow_insecure_http(insecure, 1), VERIFY_OK);
        CHECK_INT(
            verify_client_new_with_options("http://verify.example", "a", "k", insecure, &other),
            VERIFY_OK);
        verify_client_free(other);
        other = NULL;
        verify_client_options_free(insecure);
        CHECK_INT(verify_client_options_new(&no_trust), VERIFY_OK);
        CHECK_INT(verify_client_options_set_trust(no_trust, 0), VERIFY_OK);
        REFUSED(
            verify_client_new_with_options("https://verify.example", "a", "k", no_trust, &other),
            VERIFY_ERR_INVALID_ARGUMENT); /* trusts nothing */
        CHECK(other == NULL);
        verify_client_options_free(no_trust);
        CHECK_INT(verify_client_options_new(&bad_mirror), VERIFY_OK);
        CHECK_INT(verify_client_options_add_mirror(bad_mirror, "http://h:99999"), VERIFY_OK);
        REFUSED(verify_client_new_with_options(base_url, "a", "k", bad_mirror, &other),
                VERIFY_ERR_INVALID_ARGUMENT); /* mirrors are checked when the client is made */
        CHECK(other == NULL);
        verify_client_options_free(bad_mirror);
        /* NULL options: the defaults. */
        CHECK_INT(verify_client_new_with_options(base_url, "a", "k", NULL, &other), VERIFY_OK);
        verify_client_free(other);
    }
#undef REFUSED

    /* The first server is down: the mirror answers. The options are freed at once (copied). */
    CHECK_INT(verify_client_options_add_mirror(options, base_url), VERIFY_OK);
    CHECK_INT(verify_client_new_with_options(dead_url, app_id, app_key, options, &client),
              VERIFY_OK);
    verify_client_options_free(options);
    if (client == NULL) {
        return host_finish("options");
    }
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_single_login(client, card, "OPTIONS-MACHINE", NULL, &reply), VERIFY_OK);
    token = host_reply_copy(reply, "/data/token");
    verify_reply_free(reply);
    CHECK(token != NULL);
    if (token != NULL) {
        CHECK_INT(verify_heartbeat(client, token, VERIFY_SESSION_CARD, NULL, &reply), VERIFY_OK);
        verify_reply_free(reply);
        /* The log never holds the AppKey, the card, the token (nor a part of it). */
        memcpy(token_head, token, 7);
        token_head[7] = '\0';
    }
    seen.secrets[0] = app_key;
    seen.secrets[1] = card;
    seen.secrets[2] = token != NULL ? token_head : NULL;
    seen.secrets[3] = "OPTIONS-MACHINE";
    verify_client_free(client);
    free(token);
    CHECK(seen.lines >= 1);
    CHECK(!seen.secret);
    printf("      %d log lines\n", seen.lines);
    return host_finish("options");
}

/* Code pages outside Windows: the library is built without conversion tables (the cargo
 * feature `code-pages` is off), so only UTF-8 is accepted; other pages are refused with a
 * message that says why, and strings stay UTF-8. (GBK both ways: tests/platforms/windows/win_codepage.c,
 * under Wine.) */
static int code_page(const char *base_url, const char *app_id, const char *app_key)
{
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    const char *text = NULL;
    static const int32_t refused_pages[] = {936, 54936, 950, 932, 1252, 12345, -1};
    size_t i;

    CHECK_INT(verify_code_page(), VERIFY_CODE_PAGE_UTF8);
    for (i = 0; i < COUNT(refused_pages); i++) {
        char expected[64];
        snprintf(expected, sizeof expected, "code page %d is not available", (int)refused_pages[i]);
        CHECK_INT(verify_set_code_page(refused_pages[i]), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_last_error_code(), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK(strstr(verify_last_error_message(), expected) != NULL);
        CHECK(strstr(verify_last_error_message(), "UTF-8 (65001) only") != NULL);
        CHECK(strstr(verify_last_error_message(), "code-pages") != NULL);
        CHECK_INT(verify_code_page(), VERIFY_CODE_PAGE_UTF8);
    }
    CHECK_INT(verify_set_code_page(VERIFY_CODE_PAGE_UTF8), VERIFY_OK);
    CHECK_INT(verify_code_page(), VERIFY_CODE_PAGE_UTF8);
    /* The system's code page is UTF-8 here. */
    CHECK_INT(verify_set_code_page(VERIFY_CODE_PAGE_SYSTEM), VERIFY_OK);
    CHECK_INT(verify_code_page(), VERIFY_CODE_PAGE_UTF8);

    /* Strings are UTF-8 both ways; GBK bytes are invalid UTF-8. */
    client = host_client(base_url, app_id, app_key);
    CHECK_INT(verify_get_variable(client, "\xe5\x90\x8d\xe5\xad\x97", &reply),
              VERIFY_OK); /* 名字 */
    CHECK_INT(verify_reply_str(reply, "/data/value", &text), 0);
    CHECK_STR(text, "\xe5\x80\xbc"); /* 值 */
    verify_reply_free(reply);
    reply = NULL;
    CHECK_INT(verify_get_variable(client, "\xc3\xfb\xd7\xd6", &reply), VERIFY_ERR_INVALID_UTF8);
    CHECK(reply == NULL);
    verify_client_free(client);
    return host_finish("codepage");
}

int main(int argc, char **argv)
{
    const char *scenario = argc > 1 ? argv[1] : "";
    size_t i;

    if (strcmp(scenario, "list") == 0) {
        for (i = 0; i < COUNT(calls); i++) {
            printf("verify_%s\n", calls[i].name);
        }
        return 0;
    }
    if (strcmp(scenario, "misuse") == 0) {
        return misuse();
    }
    if (strcmp(scenario, "construction") == 0) {
        return construction();
    }
    if (strcmp(scenario, "accessors") == 0 && argc == 6) {
        return accessors(argv[2], argv[3], argv[4], argv[5]);
    }
    if (strcmp(scenario, "variables") == 0 && argc == 5) {
        return variables(argv[2], argv[3], argv[4]);
    }
    if (strcmp(scenario, "unreachable") == 0 && argc == 3) {
        return unreachable(argv[2]);
    }
    if (strcmp(scenario, "versions") == 0 && argc == 3) {
        return versions(argv[2]);
    }
    if (strcmp(scenario, "init") == 0 && argc == 5) {
        return init(argv[2], argv[3], argv[4]);
    }
    if (strcmp(scenario, "options") == 0 && argc == 7) {
        return options(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    if (strcmp(scenario, "codepage") == 0 && argc == 5) {
        return code_page(argv[2], argv[3], argv[4]);
    }
    if (strcmp(scenario, "contracts") == 0 && argc == 7) {
        return contracts(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    if (strcmp(scenario, "probing") == 0 && argc == 5) {
        return probing(argv[2], argv[3], argv[4]);
    }
    fprintf(stderr, "usage: %s SCENARIO ARGS... (see the comment at the top of c_abi.c)\n",
            argv[0]);
    return 2;
}
