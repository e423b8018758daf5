/*
 * c_doctor.c: the doctor through the C ABI, as a C host calls it (run by tests/c/doctor.rs):
 * verify_diagnose and every accessor of its report, and bad arguments.
 *
 *   c_doctor report BASE_URL APP_ID APP_KEY VERDICT KEY  the report's verdict is VERDICT
 *                  (pass, warn or fail) and one of its steps has the key KEY; prints
 *                  "step NUMBER VERDICT KEY" for each step and the text form: in the
 *                  process's language, in zh-CN and en asked for, and in the process's
 *                  language once set to zh-TW
 *   c_doctor misuse BASE_URL APP_ID APP_KEY              NULL and out-of-range arguments
 */

#include "host.h"

static int verdict_of(const char *name)
{
    if (strcmp(name, "pass") == 0) {
        return VERIFY_VERDICT_PASS;
    }
    if (strcmp(name, "warn") == 0) {
        return VERIFY_VERDICT_WARN;
    }
    return VERIFY_VERDICT_FAIL;
}

static int report(const char *base_url, const char *app_id, const char *app_key,
                  const char *verdict, const char *key)
{
    verify_client_options *options = NULL;
    verify_diagnosis *diagnosis = NULL;
    const char *text = NULL;
    const char *step_key = NULL;
    const char *message = NULL;
    int32_t number = 0;
    int32_t step_verdict = -1;
    int32_t overall = -1;
    size_t count = 0;
    size_t i;
    int found = 0;

    CHECK_INT(verify_client_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_client_options_set_proxy(options, VERIFY_PROXY_NONE, NULL), VERIFY_OK);
    CHECK_INT(verify_diagnose(base_url, app_id, app_key, options, 8000, &diagnosis), VERIFY_OK);
    /* The options were copied: freeing them now changes nothing. */
    verify_client_options_free(options);
    CHECK(diagnosis != NULL);
    CHECK_INT(verify_diagnosis_verdict(diagnosis, &overall), 0);
    CHECK_INT(overall, verdict_of(verdict));
    CHECK_INT(verify_diagnosis_count(diagnosis, &count), 0);
    CHECK(count >= 5);
    for (i = 0; i < count; i++) {
        CHECK_INT(verify_diagnosis_step(diagnosis, i, &number, &step_verdict, &step_key, &message),
                  0);
        CHECK(number >= VERIFY_STEP_OPTIONS && number <= VERIFY_STEP_MACHINE);
        CHECK(message != NULL && message[0] != '\0');
        printf("step %d %d %s\n", (int)number, (int)step_verdict, step_key);
        if (step_key != NULL && strcmp(step_key, key) == 0) {
            found = 1;
        }
    }
    CHECK(found);
    CHECK_INT(verify_diagnosis_step(diagnosis, count, &number, NULL, NULL, NULL),
              VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_diagnosis_json(diagnosis, &text), 0);
    CHECK(text != NULL && strstr(text, "\"version\":1") != NULL);
    CHECK(text != NULL && strstr(text, app_key) == NULL);
    CHECK_INT(verify_diagnosis_text(diagnosis, &text), 0);
    CHECK(text != NULL && strstr(text, app_key) == NULL);
    if (text != NULL) {
        printf("%s", text);
    }
    CHECK_INT(verify_diagnosis_text_in(diagnosis, "zh-CN", &text), 0);
    CHECK(text != NULL && strstr(text, app_key) == NULL);
    if (text != NULL) {
        printf("%s", text);
    }
    CHECK_INT(verify_diagnosis_text_in(diagnosis, "en", &text), 0);
    if (text != NULL) {
        printf("%s", text);
    }
    /* The process's language, read when the text is asked for. */
    CHECK_INT(verify_set_language("zh-TW"), VERIFY_OK);
    CHECK_INT(verify_diagnosis_text(diagnosis, &text), 0);
    CHECK(text != NULL && strncmp(text, "verify \xE8\xA8\xBA\xE6\x96\xB7", 13) == 0);
    if (text != NULL) {
        printf("%s", text);
    }
    CHECK_INT(verify_set_language(NULL), VERIFY_OK);
    verify_diagnosis_free(diagnosis);
    return host_finish("report");
}

static int misuse(const char *base_url, const char *app_id, const char *app_key)
{
    verify_diagnosis *diagnosis = NULL;
    const char *text = NULL;
    int32_t number = 0;
    size_t count = 0;

    CHECK_INT(verify_diagnose(NULL, app_id, app_key, NULL, 1000, &diagnosis),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(diagnosis == NULL);
    CHECK_INT(verify_diagnose(base_url, NULL, app_key, NULL, 1000, &diagnosis),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnose(base_url, app_id, NULL, NULL, 1000, &diagnosis),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnose(base_url, app_id, app_key, NULL, 1000, NULL),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnose("\xff", app_id, app_key, NULL, 1000, &diagnosis),
              VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_diagnosis_verdict(NULL, &number), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_json(NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_text(NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_text_in(NULL, "en", &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_count(NULL, &count), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_step(NULL, 0, &number, NULL, NULL, NULL),
              VERIFY_ERR_INVALID_ARGUMENT);
    verify_diagnosis_free(NULL);

    /* A plain-http URL off loopback: a report (the options step fails), not an error. */
    CHECK_INT(
        verify_diagnose("http://verify.example.test", app_id, app_key, NULL, 1000, &diagnosis),
        VERIFY_OK);
    CHECK_INT(verify_diagnosis_verdict(diagnosis, &number), 0);
    CHECK_INT(number, VERIFY_VERDICT_FAIL);
    CHECK_INT(verify_diagnosis_verdict(diagnosis, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_json(diagnosis, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_text(diagnosis, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_text_in(diagnosis, "en", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    text = NULL;
    CHECK_INT(verify_diagnosis_text_in(diagnosis, "zh CN", &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(text == NULL);
    CHECK_INT(verify_diagnosis_text_in(diagnosis, NULL, &text), 0);
    CHECK(text != NULL && strncmp(text, "verify ", 7) == 0);
    CHECK_INT(verify_diagnosis_count(diagnosis, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_step(diagnosis, 0, NULL, NULL, NULL, NULL), 0);
    verify_diagnosis_free(diagnosis);
    return host_finish("misuse");
}

int main(int argc, char **argv)
{
    const char *scenario = argc > 1 ? argv[1] : "";
    if (strcmp(scenario, "report") == 0 && argc == 7) {
        return report(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    if (strcmp(scenario, "misuse") == 0 && argc == 5) {
        return misuse(argv[2], argv[3], argv[4]);
    }
    fprintf(stderr, "usage: c_doctor report|misuse BASE_URL APP_ID APP_KEY [VERDICT KEY]\n");
    return 2;
}
