/*
 * win_misuse.c: the C ABI's guards as a Windows program sees them (tests/platforms/windows/misuse.rs runs it
 * under Wine, x64 and x86). Every kind of export gets what a careless host passes: NULL
 * handles and out-pointers, strings that are not UTF-8 or too long, integers out of range,
 * free(NULL); each must return its negative code (never crash, never write the out-pointer
 * on failure but to NULL it) and leave the last error of the thread. One real call shows
 * the client still works afterwards.
 *
 *   win_misuse BASE_URL APP_ID APP_KEY
 */

#include <stdlib.h>

#include "win_host.h"

static const char bad_utf8[] = "\xff\xfe card";

int main(int argc, char **argv)
{
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    verify_cancel *cancel = NULL;
    verify_keeper_options *options = NULL;
    verify_keeper *keeper = NULL;
    verify_keeper_status *status = NULL;
    const char *text = NULL;
    int64_t number = 0;
    int32_t flag = 0;
    char code[40];
    char *long_text;
    const size_t long_len = 70000;

    if (argc != 4) {
        fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY\n", argv[0]);
        return 2;
    }
    printf("verify %s, ABI %u, %d-bit\n", verify_version(), (unsigned)verify_abi_version(),
           (int)(sizeof(void *) * 8));

    /* meta: plain values, static strings */
    CHECK_INT(verify_abi_version(), VERIFY_ABI_VERSION);
    CHECK(verify_version() != NULL && verify_version()[0] != '\0');
    CHECK(strcmp(verify_code_describe(VERIFY_OK), "success") == 0);
    CHECK(verify_code_describe(123456) != NULL);
    CHECK(verify_code_describe(-2147483647 - 1) != NULL);
    CHECK(verify_code_user_message(123456, NULL) != NULL);
    CHECK(verify_code_user_message(-2147483647 - 1, bad_utf8) != NULL);
    CHECK(verify_code_user_message(VERIFY_OK, "") != NULL);
    CHECK_INT(verify_set_language(bad_utf8), VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_set_language("no such language tag, spaces"), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_last_error_code(), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_set_language(NULL), VERIFY_OK);
    CHECK(verify_language() != NULL);

    /* constructors: NULL out, NULL and bad strings, a bad URL; *out stays NULL */
    CHECK_INT(verify_client_new(argv[1], argv[2], argv[3], NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_last_error_code(), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(verify_last_error_message() != NULL && verify_last_error_message()[0] != '\0');
    client = (verify_client *)&flag; /* garbage the call must overwrite with NULL */
    CHECK_INT(verify_client_new(NULL, argv[2], argv[3], &client), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(client == NULL);
    CHECK_INT(verify_client_new(argv[1], bad_utf8, argv[3], &client), VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_last_error_code(), VERIFY_ERR_INVALID_UTF8);
    CHECK(client == NULL);
    CHECK_INT(verify_client_new("ftp://127.0.0.1/", argv[2], argv[3], &client),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_client_new("http://127.0.0.1:70000", argv[2], argv[3], &client),
              VERIFY_ERR_INVALID_ARGUMENT);
    long_text = (char *)malloc(long_len + 1);
    if (long_text == NULL) {
        return 3;
    }
    memset(long_text, 'A', long_len);
    long_text[long_len] = '\0';
    CHECK_INT(verify_client_new(argv[1], long_text, argv[3], &client), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(client == NULL);
    CHECK_INT(verify_cancel_new(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_options_new(NULL), VERIFY_ERR_INVALID_ARGUMENT);

    /* every free takes NULL */
    verify_client_free(NULL);
    verify_reply_free(NULL);
    verify_cancel_free(NULL);
    verify_keeper_options_free(NULL);
    verify_keeper_free(NULL);
    verify_keeper_status_free(NULL);

    /* setters: NULL handles, out-of-range integers, an unknown code page */
    CHECK_INT(verify_client_set_timeouts(NULL, 1000, 1000), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_set_code_page(-7), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_set_code_page(99999), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_code_page(), 65001);
    CHECK_INT(verify_keeper_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_interval(options, 999), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_options_set_interval(NULL, 5000), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_options_set_grace(options, 0), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_options_set_ip(options, bad_utf8), VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_keeper_options_set_callback(NULL, NULL, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_options_set_interval(options, 1000), VERIFY_OK);

    /* the client, and calls with bad arguments: nothing is sent, *out is NULL */
    CHECK_INT(verify_client_new(argv[1], argv[2], argv[3], &client), VERIFY_OK);
    CHECK(client != NULL);
    CHECK_INT(verify_client_set_timeouts(client, 0, 1000), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_client_set_timeouts(client, 1000, 0), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_client_set_timeouts(client, 10000, 30000), VERIFY_OK);
    reply = (verify_reply *)&flag;
    CHECK_INT(verify_init(NULL, &reply), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(reply == NULL);
    CHECK_INT(verify_init(client, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_single_login(client, NULL, "MACHINE", NULL, &reply),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_single_login(client, bad_utf8, "MACHINE", NULL, &reply),
              VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_single_login(client, long_text, "MACHINE", NULL, &reply),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(reply == NULL);
    CHECK_INT(verify_user_login(client, "user", bad_utf8, NULL, &reply), VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_heartbeat(client, "TOKEN", 99, NULL, &reply), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_heartbeat(client, "TOKEN", VERIFY_SESSION_CARD, bad_utf8, &reply),
              VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_get_variable(client, NULL, &reply), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_get_bulletin(NULL, &reply), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_call(client, NULL, NULL, NULL, 0, &reply), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_social_login_wait(client, NULL, NULL, 100, 1000, NULL, &reply),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(reply == NULL);

    /* one real call: the client is fine */
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    CHECK(reply != NULL);
    CHECK_INT(verify_reply_code(reply), VERIFY_OK);
    CHECK(verify_reply_message(reply) != NULL);

    /* accessors: NULL reply, pointer and out; bad UTF-8; absent and mistyped fields */
    CHECK_INT(verify_reply_code(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(verify_reply_message(NULL) == NULL);
    CHECK_INT(verify_last_error_code(), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_str(NULL, "/code", &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_str(reply, NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_str(reply, "/data/bulletin", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_str(reply, "data", &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_str(reply, "/\xff", &text), VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_reply_str(reply, "/data/no_such_field", &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_int(reply, "/data/bulletin", &number), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_bool(reply, "/code", &flag), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_reply_int(reply, "/code", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_json(NULL, NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_reply_str(reply, "/data/bulletin", &text), 0);
    CHECK(text != NULL && text[0] != '\0');
    CHECK_INT(verify_reply_int(reply, "/code", &number), 0);
    CHECK_INT(number, 200);
    CHECK_INT(verify_reply_json(reply, NULL, &text), 0);
    CHECK(text != NULL && text[0] == '{');
    verify_reply_free(reply);
    reply = NULL;

    /* machine code: NULL salt and buffer, a buffer too small, bad UTF-8 */
    CHECK_INT(verify_machine_code(NULL, code, sizeof code), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_code("salt", NULL, 33), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_code("salt", code, 32), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_code(bad_utf8, code, sizeof code), VERIFY_ERR_INVALID_UTF8);

    /* keeper: NULL and bad arguments, then its status accessors on NULL */
    keeper = (verify_keeper *)&flag;
    CHECK_INT(verify_keeper_start(client, NULL, VERIFY_SESSION_CARD, options, &keeper),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(keeper == NULL);
    CHECK_INT(verify_keeper_start(client, "TOKEN", 0, options, &keeper),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_start(client, bad_utf8, VERIFY_SESSION_USER, NULL, &keeper),
              VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_keeper_start(NULL, "TOKEN", VERIFY_SESSION_CARD, NULL, &keeper),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_start(client, "TOKEN", VERIFY_SESSION_CARD, NULL, NULL),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_stop(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_state(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_get_status(NULL, &status), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_state(NULL, &flag), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_last_message(NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_message(NULL, 0, &text), VERIFY_ERR_INVALID_ARGUMENT);

    /* cancel */
    CHECK_INT(verify_cancel_cancel(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_cancel_new(&cancel), VERIFY_OK);
    CHECK_INT(verify_cancel_cancel(cancel), VERIFY_OK);
    CHECK_INT(verify_social_login_wait(client, "STATE", NULL, 100, 1000, cancel, &reply),
              VERIFY_ERR_CANCELLED);
    CHECK(reply == NULL);

    verify_cancel_free(cancel);
    verify_keeper_options_free(options);
    verify_client_free(client);
    free(long_text);
    return host_result();
}
