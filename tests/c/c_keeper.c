/*
 * c_keeper.c: the keeper, the cancel token, the social wait and the machine code through the
 * C ABI, as a C host calls them (run by tests/c/keeper.rs): a C callback with user_data, the
 * typed status snapshot, prompt frees, bad arguments.
 *
 *   c_keeper callback BASE_URL APP_ID APP_KEY USER PASSWORD  events reach a C callback
 *   c_keeper status   BASE_URL APP_ID APP_KEY USER PASSWORD  the polled, typed status
 *   c_keeper grace    BASE_URL APP_ID APP_KEY USER PASSWORD  an outage: grace, then alive again
 *   c_keeper free     BASE_URL APP_ID APP_KEY USER PASSWORD  freeing the client mid-heartbeat
 *   c_keeper social   BASE_URL APP_ID APP_KEY USER           the social wait, cancelled, done
 *   c_keeper machine  SALT                                   prints the machine code of SALT
 *   c_keeper machine-v2 SALT FOLDER                          machine code v2 kept in FOLDER:
 *                      prints "v2-code CODE", "v2-outcome NAME", "component NAME STATE WEIGHT"
 *                      for each component, "virtual N" and "sign KIND DETAIL" for each sign
 *   c_keeper misuse   BASE_URL APP_ID APP_KEY                bad arguments, out-of-range values
 *   c_keeper offline  BASE_URL APP_ID APP_KEY CARD STATE_DIR a start licensed offline, then
 *                                                            the ban on reconnect
 *   c_keeper writer   BASE_URL APP_ID APP_KEY CARD STATE_DIR N  N logins, each storing the
 *                                                            verdict (run twice at once)
 *   c_keeper reader   BASE_URL APP_ID APP_KEY CARD STATE_DIR a start licensed offline
 *   c_keeper password BASE_URL APP_ID APP_KEY USER PASSWORD STATE_DIR  account mode offline: a
 *                                                            wrong password refused, the
 *                                                            right one licensed
 *   c_keeper stranger BASE_URL APP_ID APP_KEY CARD STATE_DIR no offline verdict (the store was
 *                                                            sealed on another machine), and
 *                                                            a state folder that is a file
 *                                                            refuses the client
 *
 * Requests to the test ("@@ ..."): "message TEXT" (leave a back-office message for USER),
 * "ban REASON" (ban USER; in the offline scenario: disable CARD), "pause" and "resume" (stop
 * and start the sandbox as an outage), "outage" (heartbeats get HTTP 502), "recover" (they work again),
 * "heartbeat-in-flight" (answer once the sandbox holds a heartbeat),
 * "polling" (answer once the sandbox answered a poll with 201), "authorize-now STATE"
 * (complete the social sign-in STATE), "authorize STATE" (the same once the sandbox answered
 * two more polls with 201: the wait is running).
 *
 * POSIX: threads and the monotonic clock (-D_POSIX_C_SOURCE=200809L -pthread).
 *
 * Built from c_keeper.c (main(), the keeper, social, machine and misuse scenarios) and
 * c_keeper_offline.c (offline, writer, reader, password, stranger); c_keeper.h holds what
 * they share.
 */

#include "c_keeper.h"

/* The snapshot type of verify_keeper_get_status. */
typedef verify_keeper_status keeper_status;

/* Logs USER in; returns a heap copy of the token (or exits). */
static char *login(const verify_client *client, const char *user, const char *password)
{
    verify_reply *reply = NULL;
    char *token;
    CHECK_INT(verify_user_login(client, user, password, NULL, &reply), VERIFY_OK);
    token = host_reply_copy(reply, "/data/token");
    verify_reply_free(reply);
    if (token == NULL) {
        printf("FAIL: no token from verify_user_login\n");
        exit(3);
    }
    return token;
}

static int callback(const char *base_url, const char *app_id, const char *app_key, const char *user,
                    const char *password)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    char *token = login(client, user, password);
    verify_keeper_options *options = NULL;
    verify_keeper *keeper = NULL;
    struct recorder recorder;
    struct recorded last;
    int i;

    memset(&recorder, 0, sizeof recorder);
    pthread_mutex_init(&recorder.lock, NULL);
    recorder.starter = pthread_self();

    CHECK_INT(verify_keeper_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_interval(options, 1000), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_callback(options, record, &recorder), VERIFY_OK);
    CHECK_INT(verify_keeper_start(client, token, VERIFY_SESSION_USER, options, &keeper), VERIFY_OK);
    /* The keeper keeps a copy of its options. */
    verify_keeper_options_free(options);
    free(token);
    if (keeper == NULL) {
        verify_client_free(client);
        return host_finish("callback");
    }
    CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ALIVE);

    host_ask("message \xe5\x85\xac\xe5\x91\x8a", NULL, 0); /* 公告 */
    CHECK(wait_kind(&recorder, VERIFY_EVENT_MESSAGE));
    CHECK_INT(count_kind(&recorder, VERIFY_EVENT_MESSAGE, &last), 1);
    CHECK_INT(last.code, 200);
    CHECK_STR(last.detail, "\xe5\x85\xac\xe5\x91\x8a");
    CHECK(count_kind(&recorder, VERIFY_EVENT_ALIVE, NULL) >= 1);
    CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ALIVE);

    host_ask("ban \xe5\xb0\x81\xe7\xa6\x81", NULL, 0); /* 封禁 */
    CHECK(wait_kind(&recorder, VERIFY_EVENT_ENDED));
    CHECK_INT(count_kind(&recorder, VERIFY_EVENT_ENDED, &last), 1);
    CHECK_INT(last.code, VERIFY_DISABLED);
    CHECK_STR(last.detail, "\xe5\xb0\x81\xe7\xa6\x81");
    CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ENDED);

    verify_keeper_free(keeper);
    verify_client_free(client);
    /* After the free no callback runs any more: the count stays as it is. */
    pthread_mutex_lock(&recorder.lock);
    for (i = 0; i < recorder.count; i++) {
        CHECK(recorder.events[i].had_message); /* message is never NULL */
    }
    CHECK(!recorder.on_starter); /* never on the thread that started the keeper */
    CHECK_INT(recorder.events[recorder.count - 1].kind, VERIFY_EVENT_ENDED);
    pthread_mutex_unlock(&recorder.lock);
    pthread_mutex_destroy(&recorder.lock);
    return host_finish("callback");
}

/* A snapshot of the keeper (or exits). */
static keeper_status *snapshot(const verify_keeper *keeper)
{
    keeper_status *status = NULL;
    CHECK_INT(verify_keeper_get_status(keeper, &status), VERIFY_OK);
    if (status == NULL) {
        printf("FAIL: verify_keeper_get_status gave no snapshot\n");
        exit(3);
    }
    return status;
}

static int status(const char *base_url, const char *app_id, const char *app_key, const char *user,
                  const char *password)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    char *token = login(client, user, password);
    verify_keeper_options *options = NULL;
    verify_keeper *keeper = NULL;
    keeper_status *snap;
    const char *text = NULL;
    const char *untouched = "untouched";
    int32_t value = -1;
    int64_t when = -1;
    uint64_t ok = 99, failed = 99;
    size_t count = 99, taken = 0;
    char messages[4][64];
    char *before_message;
    int32_t before_code;
    long deadline;

    CHECK_INT(verify_keeper_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_interval(options, 1000), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_grace(options, 60000), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_ip(options, "10.1.2.3"), VERIFY_OK);
    CHECK_INT(verify_keeper_start(client, token, VERIFY_SESSION_USER, options, &keeper), VERIFY_OK);
    verify_keeper_options_free(options);
    free(token);
    if (keeper == NULL) {
        verify_client_free(client);
        return host_finish("status");
    }

    /* Before the first heartbeat: alive, nothing yet; absent values leave the last error. */
    CHECK_INT(verify_reply_code(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    before_code = verify_last_error_code();
    before_message = host_last_error_copy();
    snap = snapshot(keeper);
    CHECK_INT(verify_keeper_status_state(snap, &value), 0);
    CHECK_INT(value, VERIFY_KEEPER_ALIVE);
    CHECK_INT(verify_keeper_status_last_code(snap, &value), 0);
    CHECK_INT(value, 0);
    CHECK_INT(verify_keeper_status_last_message(snap, &text), 0);
    CHECK_STR(text, "");
    text = untouched;
    CHECK_INT(verify_keeper_status_last_success(snap, &when), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(when, -1);
    CHECK_INT(verify_keeper_status_expire_at(snap, &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_keeper_status_remark(snap, &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_keeper_status_message(snap, 0, &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK(text == untouched);
    CHECK_INT(verify_keeper_status_counts(snap, &ok, &failed), 0);
    CHECK_INT(ok, 0);
    CHECK_INT(failed, 0);
    CHECK_INT(verify_keeper_status_message_count(snap, &count), 0);
    CHECK_INT(count, 0);
    CHECK_INT(verify_last_error_code(), before_code);
    CHECK_STR(verify_last_error_message(), before_message);
    free(before_message);
    verify_keeper_status_free(snap);

    /* A back-office message, taken by exactly one snapshot. */
    host_ask("message poll me", NULL, 0);
    deadline = host_now_ms() + PATIENCE_MS * host_slack();
    while (taken == 0 && host_now_ms() < deadline) {
        size_t i;
        snap = snapshot(keeper);
        CHECK_INT(verify_keeper_status_message_count(snap, &count), 0);
        for (i = 0; i < count; i++) {
            text = NULL;
            CHECK_INT(verify_keeper_status_message(snap, i, &text), 0);
            if (text != NULL && taken < COUNT(messages)) {
                strncpy(messages[taken], text, sizeof messages[taken] - 1);
                messages[taken][sizeof messages[taken] - 1] = '\0';
                taken++;
            }
        }
        if (count > 0) {
            CHECK_INT(verify_keeper_status_message(snap, count, &text), VERIFY_ERR_NO_SUCH_FIELD);
        }
        verify_keeper_status_free(snap);
        if (taken == 0) {
            sleep_ms(20);
        }
    }
    CHECK_INT(taken, 1);
    if (taken >= 1) {
        CHECK_STR(messages[0], "poll me");
    }
    snap = snapshot(keeper);
    CHECK_INT(verify_keeper_status_state(snap, &value), 0);
    CHECK_INT(value, VERIFY_KEEPER_ALIVE);
    CHECK_INT(verify_keeper_status_last_code(snap, &value), 0);
    CHECK_INT(value, 200);
    CHECK_INT(verify_keeper_status_last_success(snap, &when), 0);
    CHECK(when > 1700000000);
    text = NULL;
    CHECK_INT(verify_keeper_status_expire_at(snap, &text), 0);
    CHECK(text != NULL && text[0] != '\0');
    CHECK_INT(verify_keeper_status_counts(snap, &ok, &failed), 0);
    CHECK(ok >= 1);
    CHECK_INT(failed, 0);
    CHECK_INT(verify_keeper_status_message_count(snap, &count), 0);
    CHECK_INT(count, 0); /* each message once */
    verify_keeper_status_free(snap);

    /* The end of the session, read from the snapshot. */
    host_ask("ban \xe5\xb0\x81\xe7\xa6\x81", NULL, 0); /* 封禁 */
    deadline = host_now_ms() + PATIENCE_MS * host_slack();
    while (verify_keeper_state(keeper) != VERIFY_KEEPER_ENDED && host_now_ms() < deadline) {
        sleep_ms(20);
    }
    snap = snapshot(keeper);
    CHECK_INT(verify_keeper_status_state(snap, &value), 0);
    CHECK_INT(value, VERIFY_KEEPER_ENDED);
    CHECK_INT(verify_keeper_status_last_code(snap, &value), 0);
    CHECK_INT(value, VERIFY_DISABLED);
    text = NULL;
    CHECK_INT(verify_keeper_status_remark(snap, &text), 0);
    CHECK_STR(text, "\xe5\xb0\x81\xe7\xa6\x81");
    text = NULL;
    CHECK_INT(verify_keeper_status_last_message(snap, &text), 0);
    CHECK(text != NULL && text[0] != '\0');
    CHECK_INT(verify_keeper_status_counts(snap, &ok, &failed), 0);
    CHECK(failed >= 1);
    /* A snapshot outlives its keeper. */
    verify_keeper_free(keeper);
    CHECK_INT(verify_keeper_status_state(snap, &value), 0);
    CHECK_INT(value, VERIFY_KEEPER_ENDED);
    verify_keeper_status_free(snap);
    verify_client_free(client);
    return host_finish("status");
}

/* Waits until the keeper's state is `state`; returns whether it became so. */
static int wait_state(const verify_keeper *keeper, int32_t state)
{
    long deadline = host_now_ms() + PATIENCE_MS * host_slack();
    while (verify_keeper_state(keeper) != state) {
        if (host_now_ms() > deadline) {
            return 0;
        }
        sleep_ms(20);
    }
    return 1;
}

static int grace(const char *base_url, const char *app_id, const char *app_key, const char *user,
                 const char *password)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    char *token = login(client, user, password);
    verify_keeper_options *options = NULL;
    verify_keeper *keeper = NULL;
    keeper_status *snap;
    struct recorder recorder;
    struct recorded last;
    const char *text = NULL;
    int32_t value = 0;
    uint64_t ok = 0, failed = 0, ok_before = 0;

    memset(&recorder, 0, sizeof recorder);
    pthread_mutex_init(&recorder.lock, NULL);
    recorder.starter = pthread_self();
    CHECK_INT(verify_keeper_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_interval(options, 1000), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_grace(options, 600000), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_callback(options, record, &recorder), VERIFY_OK);
    CHECK_INT(verify_keeper_start(client, token, VERIFY_SESSION_USER, options, &keeper), VERIFY_OK);
    verify_keeper_options_free(options);
    free(token);
    if (keeper == NULL) {
        verify_client_free(client);
        return host_finish("grace");
    }
    CHECK(wait_kind(&recorder, VERIFY_EVENT_ALIVE));

    /* The server fails heartbeats (HTTP 502): trouble, the grace period, a usable session. */
    host_ask("outage", NULL, 0);
    CHECK(wait_state(keeper, VERIFY_KEEPER_GRACE));
    CHECK(wait_kind(&recorder, VERIFY_EVENT_TROUBLE));
    count_kind(&recorder, VERIFY_EVENT_TROUBLE, &last);
    CHECK(last.code < 0);
    CHECK_INT(count_kind(&recorder, VERIFY_EVENT_ENDED, NULL), 0);
    snap = snapshot(keeper);
    CHECK_INT(verify_keeper_status_state(snap, &value), 0);
    CHECK_INT(value, VERIFY_KEEPER_GRACE);
    CHECK_INT(verify_keeper_status_last_code(snap, &value), 0);
    CHECK(value < 0);
    CHECK_INT(verify_keeper_status_last_message(snap, &text), 0);
    CHECK(text != NULL && text[0] != '\0');
    CHECK_INT(verify_keeper_status_counts(snap, &ok_before, &failed), 0);
    CHECK(ok_before >= 1);
    CHECK(failed >= 1);
    /* The last success is still known during the grace period. */
    {
        int64_t when = 0;
        CHECK_INT(verify_keeper_status_last_success(snap, &when), 0);
        CHECK(when > 1700000000);
    }
    verify_keeper_status_free(snap);

    /* The server is back: alive again. */
    host_ask("recover", NULL, 0);
    CHECK(wait_state(keeper, VERIFY_KEEPER_ALIVE));
    snap = snapshot(keeper);
    CHECK_INT(verify_keeper_status_last_code(snap, &value), 0);
    CHECK_INT(value, 200);
    CHECK_INT(verify_keeper_status_counts(snap, &ok, &failed), 0);
    CHECK(ok > ok_before);
    verify_keeper_status_free(snap);
    CHECK_INT(count_kind(&recorder, VERIFY_EVENT_ENDED, NULL), 0);

    verify_keeper_free(keeper);
    verify_client_free(client);
    pthread_mutex_destroy(&recorder.lock);
    return host_finish("grace");
}

static int free_client(const char *base_url, const char *app_id, const char *app_key,
                       const char *user, const char *password)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    char *token = login(client, user, password);
    verify_keeper_options *options = NULL;
    verify_keeper *keeper = NULL;
    long started, took;

    CHECK_INT(verify_keeper_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_interval(options, 1000), VERIFY_OK);
    CHECK_INT(verify_keeper_start(client, token, VERIFY_SESSION_USER, options, &keeper), VERIFY_OK);
    verify_keeper_options_free(options);
    free(token);
    if (keeper == NULL) {
        verify_client_free(client);
        return host_finish("free");
    }
    /* The sandbox delays heartbeats by 10 s: the test answers once one is in flight. */
    host_ask("heartbeat-in-flight", NULL, 0);
    started = host_now_ms();
    verify_client_free(client);
    took = host_now_ms() - started;
    printf("      verify_client_free took %ld ms with a heartbeat in flight\n", took);
    CHECK(took < 100L * host_slack());
    /* The keeper handle stays valid after its client is gone, and reports the end. */
    CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ENDED);
    CHECK_INT(verify_keeper_stop(keeper), VERIFY_OK);
    CHECK_INT(verify_keeper_stop(keeper), VERIFY_OK); /* idempotent */
    verify_keeper_free(keeper);
    return host_finish("free");
}

/* A social wait on its own thread. */
struct wait_job {
    const verify_client *client;
    const char *state;
    uint32_t interval_ms;
    uint32_t timeout_ms;
    const verify_cancel *cancel;
    int32_t code;
    verify_reply *reply;
    long returned_ms;
};

static void *wait_thread(void *argument)
{
    struct wait_job *job = (struct wait_job *)argument;
    job->code = verify_social_login_wait(job->client, job->state, NULL, job->interval_ms,
                                         job->timeout_ms, job->cancel, &job->reply);
    job->returned_ms = host_now_ms();
    return NULL;
}

static int social(const char *base_url, const char *app_id, const char *app_key, const char *user)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    verify_reply *reply = NULL;
    verify_cancel *cancel = NULL;
    struct wait_job job;
    pthread_t thread;
    char *state;
    char *url;
    const char *text = NULL;
    char request[256];
    long cancelled_at;

    /* Cancelled from another thread while the wait is in a poll's interval. */
    CHECK_INT(verify_social_login_start(client, NULL, &reply), VERIFY_OK);
    state = host_reply_copy(reply, "/data/state");
    verify_reply_free(reply);
    CHECK_INT(verify_cancel_new(&cancel), VERIFY_OK);
    if (state == NULL || cancel == NULL) {
        free(state);
        verify_cancel_free(cancel);
        verify_client_free(client);
        return host_finish("social");
    }
    memset(&job, 0, sizeof job);
    job.client = client;
    job.state = state;
    job.interval_ms = 60000;
    job.timeout_ms = 60000;
    job.cancel = cancel;
    pthread_create(&thread, NULL, wait_thread, &job);
    host_ask("polling", NULL, 0);
    cancelled_at = host_now_ms();
    CHECK_INT(verify_cancel_cancel(cancel), VERIFY_OK);
    pthread_join(thread, NULL);
    printf("      the wait returned %ld ms after the cancel\n", job.returned_ms - cancelled_at);
    CHECK_INT(job.code, VERIFY_ERR_CANCELLED);
    CHECK(job.reply == NULL);
    CHECK(job.returned_ms - cancelled_at < 100L * host_slack());
    /* A cancelled token stops later waits at once. */
    CHECK_INT(verify_social_login_wait(client, state, NULL, 50, 60000, cancel, &reply),
              VERIFY_ERR_CANCELLED);
    CHECK(reply == NULL);
    CHECK_INT(verify_cancel_cancel(cancel), VERIFY_OK); /* any number of times */
    verify_cancel_free(cancel);
    free(state);

    /* A timeout without authorization: VERIFY_ERR_TIMEOUT, no reply. */
    CHECK_INT(verify_social_login_start(client, NULL, &reply), VERIFY_OK);
    state = host_reply_copy(reply, "/data/state");
    verify_reply_free(reply);
    if (state != NULL) {
        CHECK_INT(verify_social_login_wait(client, state, NULL, 50, 200, NULL, &reply),
                  VERIFY_ERR_TIMEOUT);
        CHECK(reply == NULL);
        free(state);
    }

    /* Register USER's social identity, then a wait completed by the back office. */
    CHECK_INT(verify_social_register_start(client, user, NULL, NULL, &reply), VERIFY_OK);
    url = host_reply_copy(reply, "/data/url");
    verify_reply_free(reply);
    CHECK(url != NULL && strstr(url, "state=") != NULL);
    if (url != NULL && strstr(url, "state=") != NULL) {
        char *at = strstr(url, "state=") + strlen("state=");
        at[strcspn(at, "&")] = '\0';
        snprintf(request, sizeof request, "authorize-now %s", at);
        host_ask(request, NULL, 0);
    }
    free(url);

    CHECK_INT(verify_social_login_start(client, NULL, &reply), VERIFY_OK);
    state = host_reply_copy(reply, "/data/state");
    verify_reply_free(reply);
    if (state != NULL) {
        memset(&job, 0, sizeof job);
        job.client = client;
        job.state = state;
        job.interval_ms = 50;
        job.timeout_ms = (uint32_t)(20000L * host_slack());
        job.cancel = NULL;
        pthread_create(&thread, NULL, wait_thread, &job);
        snprintf(request, sizeof request, "authorize %s", state);
        host_ask(request, NULL, 0);
        pthread_join(thread, NULL);
        CHECK_INT(job.code, VERIFY_OK);
        if (CHECK(job.reply != NULL)) {
            text = NULL;
            CHECK_INT(verify_reply_str(job.reply, "/data/username", &text), 0);
            CHECK_STR(text, user);
            text = NULL;
            CHECK_INT(verify_reply_str(job.reply, "/data/token", &text), 0);
            CHECK(text != NULL && strlen(text) == 40);
        }
        verify_reply_free(job.reply);
        free(state);
    }
    verify_client_free(client);
    return host_finish("social");
}

static int is_upper_hex(const char *text)
{
    for (; *text != '\0'; text++) {
        if (!((*text >= '0' && *text <= '9') || (*text >= 'A' && *text <= 'F'))) {
            return 0;
        }
    }
    return 1;
}

static int machine(const char *salt)
{
    char buffer[VERIFY_MACHINE_CODE_LEN + 1];
    char again[64];
    char other[VERIFY_MACHINE_CODE_LEN + 1];
    char short_buffer[VERIFY_MACHINE_CODE_LEN];

    CHECK_INT(verify_machine_code(salt, buffer, sizeof buffer), VERIFY_OK);
    CHECK_INT(strlen(buffer), VERIFY_MACHINE_CODE_LEN);
    CHECK(is_upper_hex(buffer));
    CHECK_INT(verify_machine_code(salt, again, sizeof again), VERIFY_OK);
    CHECK_STR(again, buffer);
    CHECK_INT(verify_machine_code("", other, sizeof other), VERIFY_OK);
    CHECK(strcmp(other, buffer) != 0); /* salted */
    CHECK_INT(verify_machine_code("x", short_buffer, sizeof short_buffer),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_code(NULL, other, sizeof other), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_code("x", NULL, 33), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_code("\xff", other, sizeof other), VERIFY_ERR_INVALID_UTF8);
    printf("machine-code %s\n", buffer);
    return host_finish("machine");
}

static const char *outcome_name(int32_t outcome)
{
    switch (outcome) {
        case VERIFY_MACHINE_ISSUED:
            return "issued";
        case VERIFY_MACHINE_KEPT:
            return "kept";
        case VERIFY_MACHINE_REISSUED:
            return "reissued";
        case VERIFY_MACHINE_STORE_UNREADABLE:
            return "store_unreadable";
        default:
            return "unknown";
    }
}

static int machine_v2(const char *salt, const char *folder)
{
    char code[VERIFY_MACHINE_CODE_LEN + 1];
    char v1[VERIFY_MACHINE_CODE_LEN + 1];
    char v1_ex[VERIFY_MACHINE_CODE_LEN + 1];
    char short_buffer[VERIFY_MACHINE_CODE_LEN];
    verify_machine_check *check = NULL;
    verify_machine_virtual *report = NULL;
    const char *text = NULL;
    int32_t outcome = 0, kind = 0, state = 0, weight = 0, looks = -1, score = 0;
    size_t count = 0, i;

    /* v1 through the versioned call is verify_machine_code, bit for bit. */
    CHECK_INT(verify_machine_code(salt, v1, sizeof v1), VERIFY_OK);
    CHECK_INT(verify_machine_code_ex(salt, VERIFY_MACHINE_V1, NULL, v1_ex, sizeof v1_ex),
              VERIFY_OK);
    CHECK_STR(v1_ex, v1);

    /* The check first (it prints the outcome of this run), then the plain call agrees. */
    CHECK_INT(verify_machine_check_new(salt, folder, &check), VERIFY_OK);
    CHECK(check != NULL);
    CHECK_INT(verify_machine_check_code(check, &text), 0);
    CHECK(text != NULL && strlen(text) == VERIFY_MACHINE_CODE_LEN && is_upper_hex(text));
    CHECK_INT(verify_machine_check_outcome(check, &outcome), 0);
    CHECK_INT(verify_machine_check_score(check, &score), 0);
    CHECK_INT(verify_machine_code_ex(salt, VERIFY_MACHINE_V2, folder, code, sizeof code),
              VERIFY_OK);
    CHECK_STR(code, text);
    printf("v2-code %s\nv2-outcome %s\nv2-score %d\n", code, outcome_name(outcome), (int)score);
    if (verify_machine_check_note(check, &text) == 0) {
        printf("v2-note %s\n", text);
    }
    CHECK_INT(verify_machine_check_count(check, &count), 0);
    CHECK_INT(count, 6);
    for (i = 0; i < count; i++) {
        CHECK_INT(verify_machine_check_component(check, i, &kind, &state, &weight), 0);
        printf("component %s %s %d\n", verify_machine_component_name(kind),
               verify_machine_state_name(state), (int)weight);
    }
    CHECK_INT(verify_machine_check_component(check, count, &kind, NULL, NULL),
              VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_machine_check_component(check, 0, NULL, NULL, NULL), 0);
    CHECK_STR(verify_machine_component_name(VERIFY_MACHINE_BOARD_UUID), "board_uuid");
    CHECK_STR(verify_machine_component_name(99), "unknown");
    CHECK_STR(verify_machine_state_name(VERIFY_COMPONENT_MATCHES), "matches");
    CHECK_STR(verify_machine_state_name(-1), "unknown");
    CHECK_INT(verify_machine_check_outcome(NULL, &outcome), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_check_score(check, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_check_note(NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    verify_machine_check_free(check);
    verify_machine_check_free(NULL);

    /* Bad arguments: codes, never a crash. */
    CHECK_INT(verify_machine_code_ex(salt, 3, folder, code, sizeof code),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(
        verify_machine_code_ex(salt, VERIFY_MACHINE_V2, folder, short_buffer, sizeof short_buffer),
        VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_code_ex(NULL, VERIFY_MACHINE_V2, folder, code, sizeof code),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_check_new(salt, folder, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    check = (verify_machine_check *)&count;
    CHECK_INT(verify_machine_check_new("\xff", folder, &check), VERIFY_ERR_INVALID_UTF8);
    CHECK(check == NULL);
    CHECK_INT(verify_machine_check_code(NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_check_count(NULL, &count), VERIFY_ERR_INVALID_ARGUMENT);

    /* The virtualisation report. */
    CHECK_INT(verify_machine_virtual_new(&report), VERIFY_OK);
    CHECK_INT(verify_machine_virtual_looks_virtual(report, &looks), 0);
    CHECK_INT(verify_machine_virtual_count(report, &count), 0);
    CHECK_INT(looks, count > 0 ? 1 : 0);
    printf("virtual %d\n", (int)looks);
    for (i = 0; i < count; i++) {
        CHECK_INT(verify_machine_virtual_sign(report, i, &kind, &text), 0);
        printf("sign %d %s\n", (int)kind, text);
    }
    CHECK_INT(verify_machine_virtual_sign(report, count, &kind, &text), VERIFY_ERR_NO_SUCH_FIELD);
    CHECK_INT(verify_machine_virtual_new(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_virtual_looks_virtual(NULL, &looks), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_virtual_count(report, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_machine_virtual_sign(NULL, 0, &kind, &text), VERIFY_ERR_INVALID_ARGUMENT);
    verify_machine_virtual_free(report);
    verify_machine_virtual_free(NULL);
    return host_finish("machine-v2");
}

static void VERIFY_CALL ignore_event(void *user_data, const verify_event *event)
{
    (void)user_data;
    (void)event;
}

static int misuse(const char *base_url, const char *app_id, const char *app_key)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    verify_keeper_options *options = NULL;
    int garbage = 0;
    verify_keeper *keeper = (verify_keeper *)(void *)&garbage;
    keeper_status *snap = NULL;
    verify_reply *reply = NULL;
    int32_t value = 0;
    int64_t when = 0;
    uint64_t ok = 0, failed = 0;
    size_t count = 0;
    const char *text = NULL;

    /* verify_keeper_start */
    CHECK_INT(verify_keeper_start(NULL, "t", VERIFY_SESSION_CARD, NULL, &keeper),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(keeper == NULL);
    CHECK_INT(verify_keeper_start(client, NULL, VERIFY_SESSION_CARD, NULL, &keeper),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_start(client, "", VERIFY_SESSION_CARD, NULL, &keeper),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_start(client, "t", 7, NULL, &keeper), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_start(client, "t", 0, NULL, &keeper), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_start(client, "t", VERIFY_SESSION_CARD, NULL, NULL),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_start(client, "\xff", VERIFY_SESSION_CARD, NULL, &keeper),
              VERIFY_ERR_INVALID_UTF8);
    CHECK(keeper == NULL);

    /* Keeper options: the setters refuse bad values, with a message. */
    CHECK_INT(verify_keeper_options_new(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_interval(options, 999), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(strstr(verify_last_error_message(), "1000") != NULL);
    CHECK_INT(verify_keeper_options_set_interval(options, 0), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_options_set_grace(options, 0), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(verify_last_error_message()[0] != '\0');
    CHECK_INT(verify_keeper_options_set_ip(options, "\xff"), VERIFY_ERR_INVALID_UTF8);
    CHECK_INT(verify_keeper_options_set_interval(NULL, 1000), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_options_set_grace(NULL, 1000), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_options_set_ip(NULL, "1.2.3.4"), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_options_set_callback(NULL, ignore_event, NULL),
              VERIFY_ERR_INVALID_ARGUMENT);
    /* Accepted: the bounds, the largest values (deadlines saturate), NULL and empty IP,
     * a NULL callback. */
    CHECK_INT(verify_keeper_options_set_interval(options, 1000), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_grace(options, 1), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_interval(options, UINT32_MAX), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_grace(options, UINT32_MAX), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_ip(options, NULL), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_ip(options, ""), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_callback(options, NULL, NULL), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_callback(options, ignore_event, &garbage), VERIFY_OK);
    /* A keeper with the largest interval and grace starts, reports alive, and stops. */
    CHECK_INT(verify_keeper_start(client, "t", VERIFY_SESSION_CARD, options, &keeper), VERIFY_OK);
    verify_keeper_options_free(options);
    verify_keeper_options_free(NULL);
    if (CHECK(keeper != NULL)) {
        CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ALIVE);
        CHECK_INT(verify_keeper_get_status(keeper, NULL), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_keeper_stop(keeper), VERIFY_OK);
        CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ENDED);
        verify_keeper_free(keeper);
    }
    /* Default options (NULL). */
    keeper = NULL;
    CHECK_INT(verify_keeper_start(client, "t", VERIFY_SESSION_USER, NULL, &keeper), VERIFY_OK);
    if (CHECK(keeper != NULL)) {
        CHECK_INT(verify_keeper_get_status(keeper, &snap), VERIFY_OK);
        verify_keeper_free(keeper);
    }

    /* NULL handles and out-parameters. */
    CHECK_INT(verify_keeper_state(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_stop(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    {
        keeper_status *none = (keeper_status *)(void *)&garbage;
        CHECK_INT(verify_keeper_get_status(NULL, &none), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK(none == NULL);
    }
    CHECK_INT(verify_keeper_status_state(NULL, &value), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_last_code(NULL, &value), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_last_message(NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_remark(NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_expire_at(NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_last_success(NULL, &when), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_counts(NULL, &ok, &failed), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_message_count(NULL, &count), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_message(NULL, 0, &text), VERIFY_ERR_INVALID_ARGUMENT);
    if (snap != NULL) {
        CHECK_INT(verify_keeper_status_state(snap, NULL), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_keeper_status_last_code(snap, NULL), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_keeper_status_last_message(snap, NULL), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_keeper_status_remark(snap, NULL), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_keeper_status_expire_at(snap, NULL), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_keeper_status_last_success(snap, NULL), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_keeper_status_counts(snap, NULL, &failed), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_keeper_status_counts(snap, &ok, NULL), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_keeper_status_message_count(snap, NULL), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_keeper_status_message(snap, 0, NULL), VERIFY_ERR_INVALID_ARGUMENT);
        CHECK_INT(verify_keeper_status_message(snap, (size_t)-1, &text), VERIFY_ERR_NO_SUCH_FIELD);
        verify_keeper_status_free(snap);
    }
    verify_keeper_status_free(NULL);
    verify_keeper_free(NULL);

    /* The cancel token. */
    CHECK_INT(verify_cancel_new(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_cancel_cancel(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    verify_cancel_free(NULL);

    /* The social wait's own arguments (its strings are in c_abi.c's misuse table). */
    CHECK_INT(verify_social_login_wait(client, NULL, NULL, 10, 10, NULL, &reply),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_social_login_wait(client, "s", NULL, 0, 10, NULL, &reply),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(reply == NULL);
    verify_client_free(client);
    return host_finish("misuse");
}

int main(int argc, char **argv)
{
    const char *scenario = argc > 1 ? argv[1] : "";
    if (strcmp(scenario, "callback") == 0 && argc == 7) {
        return callback(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    if (strcmp(scenario, "status") == 0 && argc == 7) {
        return status(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    if (strcmp(scenario, "grace") == 0 && argc == 7) {
        return grace(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    if (strcmp(scenario, "free") == 0 && argc == 7) {
        return free_client(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    if (strcmp(scenario, "social") == 0 && argc == 6) {
        return social(argv[2], argv[3], argv[4], argv[5]);
    }
    if (strcmp(scenario, "machine") == 0 && argc == 3) {
        return machine(argv[2]);
    }
    if (strcmp(scenario, "machine-v2") == 0 && argc == 4) {
        return machine_v2(argv[2], argv[3]);
    }
    if (strcmp(scenario, "misuse") == 0 && argc == 5) {
        return misuse(argv[2], argv[3], argv[4]);
    }
    if (strcmp(scenario, "offline") == 0 && argc == 7) {
        return offline(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    if (strcmp(scenario, "writer") == 0 && argc == 8) {
        return writer(argv[2], argv[3], argv[4], argv[5], argv[6], atoi(argv[7]));
    }
    if (strcmp(scenario, "reader") == 0 && argc == 7) {
        return reader(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    if (strcmp(scenario, "password") == 0 && argc == 8) {
        return password(argv[2], argv[3], argv[4], argv[5], argv[6], argv[7]);
    }
    if (strcmp(scenario, "stranger") == 0 && argc == 7) {
        return stranger(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    fprintf(stderr, "usage: %s SCENARIO ARGS... (see the comment at the top of c_keeper.c)\n",
            argv[0]);
    return 2;
}
