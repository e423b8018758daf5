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
 *   c_doctor client BASE_URL APP_ID APP_KEY CAUSE FILE   verify_client_diagnose on a client
 *                  of the program: every step heard by the callback on the calling thread,
 *                  the first cause CAUSE ("none": the report passed) with its first line,
 *                  actor and sentence in each language, the support file saved at FILE;
 *                  a cancelled token gives VERIFY_ERR_CANCELLED and no report
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
    CHECK(text != NULL && strstr(text, "\"version\":2") != NULL);
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
    /* The summary (the second line, after the cause) in zh-TW. */
    CHECK(text != NULL && strstr(text, "\nverify \xE8\xA8\xBA\xE6\x96\xB7") != NULL);
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
    CHECK_INT(verify_diagnosis_step_text(NULL, 0, "en", &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_support_file(NULL, "en", &text), VERIFY_ERR_INVALID_ARGUMENT);
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
    CHECK_INT(verify_diagnosis_step_text(diagnosis, 0, "en", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_support_file(diagnosis, "en", NULL), VERIFY_ERR_INVALID_ARGUMENT);
    text = NULL;
    CHECK_INT(verify_diagnosis_text_in(diagnosis, "zh CN", &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(text == NULL);
    CHECK_INT(verify_diagnosis_text_in(diagnosis, NULL, &text), 0);
    CHECK(text != NULL && strstr(text, "\nverify ") != NULL);
    CHECK_INT(verify_diagnosis_count(diagnosis, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_step(diagnosis, 0, NULL, NULL, NULL, NULL), 0);
    verify_diagnosis_free(diagnosis);
    return host_finish("misuse");
}

/* What the step callback heard. */
struct heard {
    int steps;
    int bad;
};

static void VERIFY_CALL on_step(void *user_data, int32_t step, int32_t verdict, const char *key,
                                const char *sentence)
{
    struct heard *heard = (struct heard *)user_data;
    heard->steps++;
    if (step < VERIFY_STEP_OPTIONS || verdict < VERIFY_VERDICT_PASS || key == NULL ||
        sentence == NULL || sentence[0] == '\0') {
        heard->bad++;
    }
    printf("progress %d %d %s: %s\n", (int)step, (int)verdict, key ? key : "(null)",
           sentence ? sentence : "(null)");
}

static int from_client(const char *base_url, const char *app_id, const char *app_key,
                       const char *cause, const char *file)
{
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    verify_cancel *cancel = NULL;
    verify_diagnosis *diagnosis = NULL;
    struct heard heard = {0, 0};
    const char *line = NULL;
    const char *key = NULL;
    const char *sentence = NULL;
    const char *text = NULL;
    size_t index = 0;
    size_t count = 0;
    int32_t actor = -1;
    char saved[65536];
    size_t length = 0;
    FILE *in = NULL;
    int none = strcmp(cause, "none") == 0;

    CHECK_INT(verify_client_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_client_options_set_proxy(options, VERIFY_PROXY_NONE, NULL), VERIFY_OK);
    CHECK_INT(verify_client_new_with_options(base_url, app_id, app_key, options, &client),
              VERIFY_OK);
    verify_client_options_free(options);
    CHECK_INT(verify_cancel_new(&cancel), VERIFY_OK);
    CHECK_INT(verify_client_diagnose(client, cancel, 8000, on_step, &heard, &diagnosis), VERIFY_OK);
    CHECK(diagnosis != NULL);
    CHECK_INT(verify_diagnosis_count(diagnosis, &count), 0);
    CHECK_INT(heard.steps, (long long)count);
    CHECK_INT(heard.bad, 0);
    CHECK_INT(verify_diagnosis_first_line(diagnosis, "en", &line), 0);
    CHECK(line != NULL);
    printf("first en: %s\n", line ? line : "(null)");
    CHECK_INT(verify_diagnosis_first_line(diagnosis, "zh-CN", &line), 0);
    printf("first zh-CN: %s\n", line ? line : "(null)");
    CHECK_INT(verify_diagnosis_first_line(diagnosis, "zh-TW", &line), 0);
    printf("first zh-TW: %s\n", line ? line : "(null)");
    if (none) {
        CHECK_INT(verify_diagnosis_cause(diagnosis, 0, NULL, &index, &actor, &key, &sentence),
                  VERIFY_ERR_NO_SUCH_FIELD);
    } else {
        CHECK_INT(verify_diagnosis_cause(diagnosis, 0, "zh-CN", &index, &actor, &key, &sentence),
                  0);
        CHECK_STR(key, cause);
        CHECK(actor == VERIFY_ACTOR_USER || actor == VERIFY_ACTOR_VENDOR);
        printf("cause %d %s: %s\n", (int)actor, key ? key : "(null)", sentence ? sentence : "");
        CHECK_INT(verify_diagnosis_step_text(diagnosis, index, "zh-CN", &text), 0);
        CHECK_STR(text, sentence);
        CHECK_INT(verify_diagnosis_step(diagnosis, index, NULL, NULL, &text, NULL), 0);
        CHECK_STR(text, cause);
        CHECK_INT(verify_diagnosis_cause(diagnosis, 99, NULL, NULL, NULL, NULL, NULL),
                  VERIFY_ERR_NO_SUCH_FIELD);
    }
    CHECK_INT(verify_diagnosis_step_text(diagnosis, count, "en", &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_diagnosis_support_file(diagnosis, "en", &text), 0);
    CHECK(text != NULL && strstr(text, app_key) == NULL);
    CHECK_INT(verify_diagnosis_save(diagnosis, "zh-CN", file), VERIFY_OK);
    in = fopen(file, "rb");
    CHECK(in != NULL);
    if (in != NULL) {
        length = fread(saved, 1, sizeof(saved) - 1, in);
        saved[length] = '\0';
        fclose(in);
    }
    CHECK(length > 0 && strstr(saved, app_key) == NULL);
    /* The support file asks to be sent to the vendor, in zh-CN and in English. */
    CHECK(strstr(saved, "\xE8\xBD\xAF\xE4\xBB\xB6\xE4\xBD\x9C\xE8\x80\x85") != NULL);
    CHECK(strstr(saved, "\"version\": 2") != NULL);
    CHECK_INT(verify_diagnosis_save(diagnosis, NULL, "/nonexistent-folder/x/support.txt"),
              VERIFY_ERR_SYSTEM);
    CHECK_INT(verify_diagnosis_save(diagnosis, NULL, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    verify_diagnosis_free(diagnosis);
    diagnosis = NULL;

    /* A token cancelled before: no report. */
    CHECK_INT(verify_cancel_cancel(cancel), VERIFY_OK);
    CHECK_INT(verify_client_diagnose(client, cancel, 8000, NULL, NULL, &diagnosis),
              VERIFY_ERR_CANCELLED);
    CHECK(diagnosis == NULL);
    CHECK_INT(verify_client_diagnose(NULL, NULL, 0, NULL, NULL, &diagnosis),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_client_diagnose(client, NULL, 0, NULL, NULL, NULL),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_first_line(NULL, NULL, &line), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_diagnosis_cause(NULL, 0, NULL, NULL, NULL, NULL, NULL),
              VERIFY_ERR_INVALID_ARGUMENT);
    verify_cancel_free(cancel);
    verify_client_free(client);
    return host_finish("client");
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
    if (strcmp(scenario, "client") == 0 && argc == 7) {
        return from_client(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    fprintf(stderr, "usage: c_doctor report|misuse|client BASE_URL APP_ID APP_KEY [...]\n");
    return 2;
}
