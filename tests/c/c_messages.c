/*
 * c_messages.c: the end user's messages as a C host reads them (run by tests/c/messages.rs,
 * under valgrind).
 *
 *   c_messages language TAG                  the default language is TAG (the test sets the
 *                                            locale variables): verify_language() and the
 *                                            messages asked without a language
 *   c_messages messages BASE_URL APP_ID APP_KEY USER PASSWORD DEAD_URL
 *                                            every code in every language, static strings;
 *                                            verify_set_language; the server's message and
 *                                            the developer's texts stay as they were
 */

#include "host.h"

/* Every code of the table, codes outside it, and the extremes. */
static const int32_t codes[] = {200,  201,  202,  1001, 1003, 1004,      1005,     1006, 1007, 1010,
                                1011, 1012, 1013, 1014, 1015, 1016,      1017,     1019, 1020, 1021,
                                1022, 1023, 1024, -1,   -2,   -3,        -4,       -5,   -6,   -7,
                                -8,   -9,   -10,  -11,  -12,  -13,       -14,      -15,  -16,  -17,
                                -18,  0,    42,   1002, -100, INT32_MIN, INT32_MAX};

static const char *const languages[] = {"en", "zh-CN", "zh-TW"};

/* Whether `text` holds a byte outside ASCII (Chinese, in UTF-8). */
static int has_non_ascii(const char *text)
{
    for (; *text != '\0'; text++) {
        if ((unsigned char)*text >= 0x80) {
            return 1;
        }
    }
    return 0;
}

static int language(const char *tag)
{
    CHECK_STR(verify_language(), tag);
    CHECK_STR(verify_code_user_message(VERIFY_ERR_NETWORK, NULL),
              verify_code_user_message(VERIFY_ERR_NETWORK, tag));
    CHECK_STR(verify_code_user_message(VERIFY_ERR_NETWORK, ""),
              verify_code_user_message(VERIFY_ERR_NETWORK, tag));
    printf("      %s: %s\n", verify_language(), verify_code_user_message(VERIFY_ERR_NETWORK, NULL));
    return host_finish("language");
}

static int messages(const char *base_url, const char *app_id, const char *app_key, const char *user,
                    const char *password, const char *dead_url)
{
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    const char *server_message;
    size_t i, j;

    /* Every code, every language: a message, static, English in ASCII, Chinese not. */
    for (i = 0; i < COUNT(codes); i++) {
        for (j = 0; j < COUNT(languages); j++) {
            const char *text = verify_code_user_message(codes[i], languages[j]);
            if (!CHECK(text != NULL && text[0] != '\0')) {
                printf("      code %ld %s\n", (long)codes[i], languages[j]);
                continue;
            }
            CHECK(text == verify_code_user_message(codes[i], languages[j]));
            CHECK(has_non_ascii(text) == (j != 0));
        }
        CHECK(strcmp(verify_code_user_message(codes[i], "zh-CN"),
                     verify_code_user_message(codes[i], "en")) != 0);
    }
    CHECK_STR(verify_code_user_message(VERIFY_ERR_NETWORK, "zh-CN"),
              "无法连接验证服务器，请检查网络后重试。");
    CHECK_STR(verify_code_user_message(VERIFY_ERR_NETWORK, "zh_TW.UTF-8"),
              "無法連線驗證伺服器，請檢查網路後重試。");
    CHECK_STR(verify_code_user_message(VERIFY_ERR_NETWORK, "en-US"),
              "Cannot connect to the licensing server. Please check your network and try again.");
    CHECK_STR(verify_code_user_message(VERIFY_ERR_GRACE_OVER, "zh-Hans"),
              "离线使用时间已到，请连接网络后重新登录。");
    /* Other languages are English; a malformed tag is the process's language. */
    CHECK_STR(verify_code_user_message(VERIFY_OK, "fr-FR"), "Success.");

    /* The process's language: set, refused, reset. */
    CHECK_INT(verify_set_language("zh-CN"), VERIFY_OK);
    CHECK_STR(verify_language(), "zh-CN");
    CHECK_STR(verify_code_user_message(VERIFY_WRONG_PASSWORD, NULL), "密码错误，请检查后重试。");
    CHECK_STR(verify_code_user_message(VERIFY_WRONG_PASSWORD, "zh CN"), "密码错误，请检查后重试。");
    CHECK_INT(verify_set_language("zh CN"), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_last_error_code(), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(strstr(verify_last_error_message(), "lang is not a language tag") != NULL);
    CHECK_INT(verify_set_language("\xff\xfe"), VERIFY_ERR_INVALID_UTF8);
    CHECK_STR(verify_language(), "zh-CN");

    /* The developer's words stay English whatever the language. */
    CHECK_STR(verify_code_describe(VERIFY_ERR_NETWORK),
              "network error: server unreachable or connection broken");

    /* A refusal keeps the server's own message; the last error is the developer's. */
    client = host_client(base_url, app_id, app_key);
    CHECK_INT(verify_user_login(client, user, "not-the-password", NULL, &reply),
              VERIFY_WRONG_PASSWORD);
    server_message = verify_reply_message(reply);
    CHECK_STR(server_message, "密码错误");
    CHECK(strncmp(verify_last_error_message(), "wrong password (1003)", 21) == 0);
    verify_reply_free(reply);
    reply = NULL;
    CHECK_INT(verify_user_login(client, user, password, NULL, &reply), VERIFY_OK);
    verify_reply_free(reply);
    reply = NULL;
    verify_client_free(client);

    /* A local failure: the developer's English detail, the user's Chinese message. */
    client = host_client(dead_url, app_id, app_key);
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_ERR_NETWORK);
    CHECK(reply == NULL);
    CHECK(!has_non_ascii(verify_last_error_message()));
    CHECK(strstr(verify_last_error_message(), "network error") != NULL);
    printf("      developer: %s\n      user: %s\n", verify_last_error_message(),
           verify_code_user_message(verify_last_error_code(), NULL));
    CHECK_STR(verify_code_user_message(verify_last_error_code(), NULL),
              "无法连接验证服务器，请检查网络后重试。");
    verify_client_free(client);

    CHECK_INT(verify_set_language("en"), VERIFY_OK);
    CHECK_STR(verify_code_user_message(VERIFY_WRONG_PASSWORD, NULL),
              "Wrong password. Please check it and try again.");
    CHECK_INT(verify_set_language(NULL), VERIFY_OK);
    CHECK_INT(verify_set_language(""), VERIFY_OK);
    return host_finish("messages");
}

int main(int argc, char **argv)
{
    const char *scenario = argc > 1 ? argv[1] : "";
    if (strcmp(scenario, "language") == 0 && argc == 3) {
        return language(argv[2]);
    }
    if (strcmp(scenario, "messages") == 0 && argc == 8) {
        return messages(argv[2], argv[3], argv[4], argv[5], argv[6], argv[7]);
    }
    fprintf(stderr, "usage: see the comment at the top of c_messages.c\n");
    return 2;
}
