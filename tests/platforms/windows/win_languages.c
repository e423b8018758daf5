/*
 * win_languages.c: the end user's messages and the doctor's text in five code pages and
 * three languages, from the DLL (run by tests/platforms/windows/code_page.rs under Wine, x64
 * and x86, which decodes every line and checks it).
 *
 *   win_languages
 *
 * For each code page of 936 (GBK), 950 (Big5), 54936 (GB18030), 65001 (UTF-8) and 1252
 * (Western), set with verify_set_code_page, and each language zh-CN, zh-TW, en:
 *
 *   message CP LANG CODE HEX   verify_code_user_message(CODE, LANG), its bytes in hex, for
 *                              every code of -30..-1, 200..210 and 1000..1030
 *   language CP LANG TAG       verify_language() after verify_set_language(LANG)
 *   doctor CP LANG HEX         verify_diagnosis_text_in(report, LANG) of a report made under
 *                              that code page: the doctor of http://127.0.0.1:1 (nothing
 *                              listens there), one report per code page
 */

#include "win_host.h"

static const int32_t code_pages[] = {936, 950, 54936, 65001, 1252};
static const char *const languages[] = {"zh-CN", "zh-TW", "en"};

static void print_hex(const char *text)
{
    const unsigned char *byte = (const unsigned char *)text;
    for (; *byte != '\0'; byte++) {
        printf("%02x", *byte);
    }
}

int main(void)
{
    size_t page, language;
    for (page = 0; page < sizeof code_pages / sizeof code_pages[0]; page++) {
        int32_t cp = code_pages[page];
        verify_diagnosis *report = NULL;
        CHECK_INT(verify_set_code_page(cp), VERIFY_OK);
        CHECK_INT(verify_code_page(), cp);
        CHECK_INT(verify_diagnose("http://127.0.0.1:1", "10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
                                  NULL, 3000, &report),
                  VERIFY_OK);
        CHECK(report != NULL);
        for (language = 0; language < sizeof languages / sizeof languages[0]; language++) {
            const char *lang = languages[language];
            const char *text = NULL;
            int32_t code;
            for (code = -30; code <= 1030; code++) {
                if ((code > -1 && code < 200) || (code > 210 && code < 1000)) {
                    continue;
                }
                printf("message %d %s %d ", (int)cp, lang, (int)code);
                print_hex(verify_code_user_message(code, lang));
                printf("\n");
            }
            CHECK_INT(verify_set_language(lang), VERIFY_OK);
            printf("language %d %s %s\n", (int)cp, lang, verify_language());
            if (CHECK_INT(verify_diagnosis_text_in(report, lang, &text), 0) && text != NULL) {
                printf("doctor %d %s ", (int)cp, lang);
                print_hex(text);
                printf("\n");
            }
        }
        verify_diagnosis_free(report);
    }
    CHECK_INT(verify_set_language(NULL), VERIFY_OK);
    CHECK_INT(verify_set_code_page(VERIFY_CODE_PAGE_UTF8), VERIFY_OK);
    return host_result();
}
