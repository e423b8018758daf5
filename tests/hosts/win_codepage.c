/*
 * win_codepage.c: strings in the system's ANSI code page, as VB6 and 易语言 programs pass
 * them, on Windows (tests/windows.rs runs it under Wine with a Chinese locale, where GetACP()
 * is 936, GBK). The account 张三 (password given) and the variable "greeting" = "你好 &
 * welcome" exist on the sandbox.
 *
 *   win_codepage BASE_URL APP_ID APP_KEY PASSWORD
 *
 * Checks: UTF-8 is the default; VERIFY_CODE_PAGE_SYSTEM follows GetACP(); a GBK username
 * logs in; reply texts come back in GBK; bytes that are not GBK are refused; 65001 goes
 * back to UTF-8.
 */

#include <windows.h>

#include "win_host.h"

/* 张三 and 你好 in GBK (code page 936). */
static const char user_gbk[] = "\xD5\xC5\xC8\xFD";
static const char greeting_gbk[] = "\xC4\xE3\xBA\xC3 & welcome";
static const char greeting_utf8[] = "\xE4\xBD\xA0\xE5\xA5\xBD & welcome";

static const char *variable(verify_client *client, verify_reply **reply)
{
    const char *text = NULL;
    *reply = NULL;
    CHECK_INT(verify_get_variable(client, "greeting", reply), VERIFY_OK);
    CHECK_INT(verify_reply_str(*reply, "/data/value", &text), 0);
    return text ? text : "";
}

int main(int argc, char **argv)
{
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    const char *text;

    if (argc != 5) {
        fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY PASSWORD\n", argv[0]);
        return 2;
    }
    printf("GetACP %u\n", (unsigned)GetACP());
    CHECK_INT(verify_code_page(), VERIFY_CODE_PAGE_UTF8);
    CHECK_INT(verify_client_new(argv[1], argv[2], argv[3], &client), VERIFY_OK);

    text = variable(client, &reply);
    CHECK(strcmp(text, greeting_utf8) == 0);
    verify_reply_free(reply);

    /* the system's code page */
    CHECK_INT(verify_set_code_page(VERIFY_CODE_PAGE_SYSTEM), VERIFY_OK);
    CHECK_INT(verify_code_page(), (int)GetACP());
    CHECK_INT(verify_code_page(), 936);
    text = variable(client, &reply);
    CHECK(strcmp(text, greeting_gbk) == 0);
    verify_reply_free(reply);

    CHECK_INT(verify_user_login(client, user_gbk, argv[4], "WIN-CODEPAGE", &reply), VERIFY_OK);
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/username", &text), 0);
    CHECK(text != NULL && strcmp(text, user_gbk) == 0);
    verify_reply_free(reply);
    reply = NULL;

    /* 0xFF is no GBK lead byte */
    CHECK_INT(verify_user_login(client, "\xFF\xFF", argv[4], NULL, &reply),
              VERIFY_ERR_INVALID_UTF8);
    CHECK(reply == NULL);

    /* a fixed code page, then back to UTF-8 */
    CHECK_INT(verify_set_code_page(936), VERIFY_OK);
    CHECK_INT(verify_code_page(), 936);
    CHECK_INT(verify_set_code_page(VERIFY_CODE_PAGE_UTF8), VERIFY_OK);
    text = variable(client, &reply);
    CHECK(strcmp(text, greeting_utf8) == 0);
    verify_reply_free(reply);

    verify_client_free(client);
    return host_result();
}
