/*
 * win_codepage.c: strings in the system's ANSI code page, as VB6 and 易语言 programs pass
 * them, on Windows (tests/platforms/windows/code_page.rs runs it under Wine with a Chinese locale, where GetACP()
 * is 936, GBK). The code pages are built into the Windows library only (elsewhere it speaks
 * UTF-8). On the sandbox: the account 张三 (password given), the variables "greeting" = "你好
 * & welcome", "名字" = "值" and "emoji" = "😀", the bulletin "公告 bulletin".
 *
 *   win_codepage BASE_URL APP_ID APP_KEY PASSWORD
 *
 * Checks: UTF-8 is the default; unknown code pages are refused; VERIFY_CODE_PAGE_SYSTEM
 * follows GetACP(); a GBK username logs in and comes back in GBK; a refusal's message comes
 * back in GBK; a variable's name, a JSON Pointer and values in GBK both ways, JSON texts
 * converted, a character GBK cannot hold as `?`; bytes that are not GBK are refused; the
 * end user's message is Chinese by default (GetUserDefaultUILanguage) and comes out in GBK,
 * Simplified and Traditional, while the developer's last error stays English; the doctor's
 * text is Chinese by default and in GBK; 65001 goes back to UTF-8.
 */

#include <windows.h>

#include "win_host.h"

/* 张三 and 你好 in GBK (code page 936). */
static const char user_gbk[] = "\xD5\xC5\xC8\xFD";
static const char greeting_gbk[] = "\xC4\xE3\xBA\xC3 & welcome";
static const char greeting_utf8[] = "\xE4\xBD\xA0\xE5\xA5\xBD & welcome";
/* 名字 and 值 in GBK, 值 in UTF-8. */
static const char name_gbk[] = "\xC3\xFB\xD7\xD6";
static const char value_gbk[] = "\xD6\xB5";
static const char name_utf8[] = "\xE5\x90\x8D\xE5\xAD\x97";
static const char value_utf8[] = "\xE5\x80\xBC";
/* The doctor's sentence for a wrong AppKey, 被拒绝（1011） and 被拒絕（1011）, in GBK. */
static const char refused_1011_gbk[] = "\xB1\xBB\xBE\xDC\xBE\xF8\xA3\xA8"
                                       "1011\xA3\xA9";
static const char refused_1011_tw_gbk[] = "\xB1\xBB\xBE\xDC\xBD\x5E\xA3\xA8"
                                          "1011\xA3\xA9";
/* The end user's message of VERIFY_ERR_NETWORK: 无法连接验证服务器，请检查网络后重试。 in GBK
 * and in UTF-8, and its Traditional 無法連線驗證伺服器，請檢查網路後重試。 in GBK. */
static const char network_gbk[] =
    "\xCE\xDE\xB7\xA8\xC1\xAC\xBD\xD3\xD1\xE9\xD6\xA4\xB7\xFE\xCE\xF1\xC6\xF7\xA3\xAC\xC7\xEB"
    "\xBC\xEC\xB2\xE9\xCD\xF8\xC2\xE7\xBA\xF3\xD6\xD8\xCA\xD4\xA1\xA3";
static const char network_utf8[] =
    "\xE6\x97\xA0\xE6\xB3\x95\xE8\xBF\x9E\xE6\x8E\xA5\xE9\xAA\x8C\xE8\xAF\x81\xE6\x9C\x8D\xE5\x8A"
    "\xA1\xE5\x99\xA8\xEF\xBC\x8C\xE8\xAF\xB7\xE6\xA3\x80\xE6\x9F\xA5\xE7\xBD\x91\xE7\xBB\x9C\xE5"
    "\x90\x8E\xE9\x87\x8D\xE8\xAF\x95\xE3\x80\x82";
static const char network_tw_gbk[] =
    "\x9F\x6F\xB7\xA8\xDF\x42\xBE\x80\xF2\x9E\xD7\x43\xCB\xC5\xB7\xFE\xC6\xF7\xA3\xAC\xD5\x88"
    "\x99\x7A\xB2\xE9\xBE\x57\xC2\xB7\xE1\xE1\xD6\xD8\xD4\x87\xA1\xA3";

/* Whether `text` is valid in code page `page` (MultiByteToWideChar refuses invalid bytes). */
static int valid_in(UINT page, const char *text)
{
    return MultiByteToWideChar(page, MB_ERR_INVALID_CHARS, text, -1, NULL, 0) > 0;
}

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
    CHECK_INT(verify_set_code_page(12345), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(strstr(verify_last_error_message(), "12345") != NULL);
    CHECK_INT(verify_set_code_page(-1), VERIFY_ERR_INVALID_ARGUMENT);
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

    /* The end user's messages: the user's UI language is Chinese, the text GBK. */
    printf("GetUserDefaultUILanguage %04x, verify_language %s\n",
           (unsigned)GetUserDefaultUILanguage(), verify_language());
    CHECK(strcmp(verify_language(), "zh-CN") == 0);
    text = verify_code_user_message(VERIFY_ERR_NETWORK, NULL);
    CHECK(strcmp(text, network_gbk) == 0);
    CHECK(valid_in(936, text) && !valid_in(CP_UTF8, text));
    CHECK(verify_code_user_message(VERIFY_ERR_NETWORK, "zh-CN") == text);
    CHECK(strcmp(verify_code_user_message(VERIFY_ERR_NETWORK, "zh-TW"), network_tw_gbk) == 0);
    CHECK(strcmp(verify_code_user_message(VERIFY_ERR_NETWORK, "en"),
                 "Cannot connect to the licensing server. Please check your network and try "
                 "again.") == 0);
    CHECK_INT(verify_set_language("zh-TW"), VERIFY_OK);
    CHECK(strcmp(verify_code_user_message(VERIFY_ERR_NETWORK, NULL), network_tw_gbk) == 0);
    CHECK_INT(verify_set_language(NULL), VERIFY_OK);
    CHECK(strcmp(verify_language(), "zh-CN") == 0);
    /* the developer's words stay English */
    CHECK(strcmp(verify_code_describe(VERIFY_ERR_NETWORK),
                 "network error: server unreachable or connection broken") == 0);

    /* The doctor's text of a wrong AppKey: in the user's language (zh-CN), or the one asked
     * for, in GBK. */
    {
        verify_client_options *options = NULL;
        verify_diagnosis *diagnosis = NULL;
        CHECK_INT(verify_client_options_new(&options), VERIFY_OK);
        CHECK_INT(verify_client_options_set_proxy(options, VERIFY_PROXY_NONE, NULL), VERIFY_OK);
        CHECK_INT(verify_diagnose(argv[1], argv[2], "WRONGKEY0123456789ABCDEFGHIJKLMN", options,
                                  8000, &diagnosis),
                  VERIFY_OK);
        verify_client_options_free(options);
        text = NULL;
        CHECK_INT(verify_diagnosis_text(diagnosis, &text), 0);
        CHECK(text != NULL && strstr(text, refused_1011_gbk) != NULL);
        CHECK(text != NULL && valid_in(936, text) && !valid_in(CP_UTF8, text));
        text = NULL;
        CHECK_INT(verify_diagnosis_text_in(diagnosis, "zh-TW", &text), 0);
        CHECK(text != NULL && strstr(text, refused_1011_tw_gbk) != NULL);
        text = NULL;
        CHECK_INT(verify_diagnosis_text_in(diagnosis, "en", &text), 0);
        CHECK(text != NULL && strstr(text, "Refused with 1011") != NULL);
        verify_diagnosis_free(diagnosis);
    }

    CHECK_INT(verify_user_login(client, user_gbk, argv[4], "WIN-CODEPAGE", &reply), VERIFY_OK);
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/username", &text), 0);
    CHECK(text != NULL && strcmp(text, user_gbk) == 0);
    verify_reply_free(reply);
    reply = NULL;

    /* a refusal's message (Chinese from the server) comes back in GBK, not UTF-8 */
    CHECK_INT(verify_user_login(client, user_gbk, "wrong", NULL, &reply), VERIFY_WRONG_PASSWORD);
    text = verify_reply_message(reply);
    CHECK(text != NULL && text[0] != '\0');
    CHECK(text != NULL && valid_in(936, text) && !valid_in(CP_UTF8, text));
    CHECK(text != NULL && strcmp(text, "\xC3\xDC\xC2\xEB\xB4\xED\xCE\xF3") == 0); /* 密码错误 */
    CHECK(strncmp(verify_last_error_message(), "wrong password (1003)", 21) == 0);
    verify_reply_free(reply);
    reply = NULL;

    /* a name in GBK in, its value in GBK out; a JSON Pointer in GBK; JSON texts; `?` */
    CHECK_INT(verify_get_variable(client, name_gbk, &reply), VERIFY_OK);
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/value", &text), 0);
    CHECK(text != NULL && strcmp(text, value_gbk) == 0);
    verify_reply_free(reply);
    CHECK_INT(verify_get_variables(client, &reply), VERIFY_OK);
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/variables/\xC3\xFB\xD7\xD6", &text), 0);
    CHECK(text != NULL && strcmp(text, value_gbk) == 0);
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/variables/emoji", &text), 0);
    CHECK(text != NULL && strcmp(text, "?") == 0); /* GBK cannot hold it */
    text = NULL;
    CHECK_INT(verify_reply_json(reply, "/data/variables", &text), 0);
    CHECK(text != NULL && strstr(text, greeting_gbk) != NULL);
    verify_reply_free(reply);
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/bulletin", &text), 0);
    CHECK(text != NULL && strcmp(text, "\xB9\xAB\xB8\xE6 bulletin") == 0); /* 公告 */
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
    CHECK(strcmp(verify_code_user_message(VERIFY_ERR_NETWORK, NULL), network_utf8) == 0);
    text = variable(client, &reply);
    CHECK(strcmp(text, greeting_utf8) == 0);
    verify_reply_free(reply);
    CHECK_INT(verify_get_variable(client, name_utf8, &reply), VERIFY_OK);
    text = NULL;
    CHECK_INT(verify_reply_str(reply, "/data/value", &text), 0);
    CHECK(text != NULL && strcmp(text, value_utf8) == 0);
    verify_reply_free(reply);

    verify_client_free(client);
    return host_result();
}
