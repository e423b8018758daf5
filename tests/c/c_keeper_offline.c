/*
 * c_keeper_offline.c: the offline-first scenarios of the c_keeper host (c_keeper.c has main()
 * and the list of scenarios; run by tests/c/offline.rs): a start licensed from the store and
 * the ban on reconnect (offline), two processes storing verdicts at once (writer, reader),
 * account mode offline (password), a store sealed on another machine (stranger).
 */

#define VERIFY_HOST_PART /* the check counts live in c_keeper.c */
#include "c_keeper.h"

/* Client options with offline verdicts on: STATE_DIR, a grace of 7 days. */
static verify_client_options *offline_options(const char *state_dir)
{
    verify_client_options *options = NULL;
    CHECK_INT(verify_client_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_client_options_set_state_folder(options, state_dir), VERIFY_OK);
    CHECK_INT(verify_client_options_set_offline_grace(options, 7 * 24 * 3600), VERIFY_OK);
    CHECK_INT(verify_client_options_set_clock_tolerance(options, 600), VERIFY_OK);
    CHECK_INT(verify_client_options_set_start_budget(options, 0), VERIFY_OK);
    CHECK_INT(verify_client_options_set_timeouts(options, 2000, 5000), VERIFY_OK);
    return options;
}

static verify_client *offline_client(const char *base_url, const char *app_id, const char *app_key,
                                     const char *state_dir)
{
    verify_client_options *options = offline_options(state_dir);
    verify_client *client = NULL;
    CHECK_INT(verify_client_new_with_options(base_url, app_id, app_key, options, &client),
              VERIFY_OK);
    verify_client_options_free(options);
    return client;
}

int offline(const char *base_url, const char *app_id, const char *app_key, const char *card,
            const char *state_dir)
{
    verify_client *client = offline_client(base_url, app_id, app_key, state_dir);
    verify_reply *reply = NULL;
    verify_keeper_options *options = NULL;
    verify_keeper *keeper = NULL;
    verify_keeper_status *status = NULL;
    struct recorder recorder;
    struct recorded last;
    int64_t confirmed_at = 0, grace_end = 0, seen = 0;
    int32_t reason = 0, state = 0;
    const char *expire_at = NULL, *token = NULL;

    /* The setters refuse NULL options; a budget needs offline verdicts, which need a folder. */
    CHECK_INT(verify_client_options_set_offline_grace(NULL, 1), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_client_options_set_start_budget(NULL, 1), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_client_options_set_clock_tolerance(NULL, 1), VERIFY_ERR_INVALID_ARGUMENT);
    {
        verify_client_options *lone = NULL;
        verify_client *refused = NULL;
        CHECK_INT(verify_client_options_new(&lone), VERIFY_OK);
        CHECK_INT(verify_client_options_set_offline_grace(lone, 3600), VERIFY_OK);
        CHECK_INT(verify_client_new_with_options(base_url, app_id, app_key, lone, &refused),
                  VERIFY_ERR_INVALID_ARGUMENT);
        CHECK(strstr(verify_last_error_message(), "state folder") != NULL);
        CHECK_INT(verify_client_options_set_offline_grace(lone, 0), VERIFY_OK);
        CHECK_INT(verify_client_options_set_start_budget(lone, 300), VERIFY_OK);
        CHECK_INT(verify_client_new_with_options(base_url, app_id, app_key, lone, &refused),
                  VERIFY_ERR_INVALID_ARGUMENT);
        verify_client_options_free(lone);
    }

    /* Online: the server's own reply, stored. */
    CHECK_INT(verify_single_login(client, card, "C-OFFLINE-MAC", NULL, &reply), VERIFY_OK);
    CHECK_INT(verify_reply_offline(reply, &confirmed_at, &grace_end, &reason),
              VERIFY_ERR_NO_SUCH_FIELD);
    CHECK(confirmed_at == 0 && grace_end == 0 && reason == 0);
    verify_reply_free(reply);
    reply = NULL;
    verify_client_free(client);

    /* The server stops: the next start is licensed from the store. */
    host_ask("pause", NULL, 0);
    client = offline_client(base_url, app_id, app_key, state_dir);
    CHECK_INT(verify_single_login(client, card, "C-OFFLINE-MAC", NULL, &reply), VERIFY_OFFLINE);
    CHECK(reply != NULL);
    CHECK_INT(verify_reply_code(reply), VERIFY_OFFLINE);
    CHECK_INT(verify_reply_offline(reply, &confirmed_at, &grace_end, &reason), 0);
    CHECK(confirmed_at > 0 && grace_end == confirmed_at + 7 * 24 * 3600);
    CHECK_INT(reason, VERIFY_ERR_NETWORK);
    CHECK_INT(verify_reply_offline(reply, NULL, NULL, NULL), 0);
    CHECK_INT(verify_reply_offline(NULL, NULL, NULL, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(strstr(verify_reply_message(reply), "could not be reached") != NULL);
    CHECK_INT(verify_reply_str(reply, "/data/expire_at", &expire_at), 0);
    CHECK_INT(verify_reply_str(reply, "/data/token", &token), VERIFY_ERR_NO_SUCH_FIELD);
    printf("licensed offline until %s, grace to %lld\n", expire_at, (long long)grace_end);

    /* A keeper follows the offline verdict: OFFLINE at once, then the login is sent again. */
    memset(&recorder, 0, sizeof recorder);
    pthread_mutex_init(&recorder.lock, NULL);
    recorder.starter = pthread_self();
    CHECK_INT(verify_keeper_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_interval(options, 1000), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_callback(options, record, &recorder), VERIFY_OK);
    CHECK_INT(verify_keeper_start_from_reply(NULL, reply, options, &keeper),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_start_from_reply(client, NULL, options, &keeper),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_start_from_reply(client, reply, options, NULL),
              VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_start_from_reply(client, reply, options, &keeper), VERIFY_OK);
    verify_keeper_options_free(options);
    verify_reply_free(reply);
    reply = NULL;
    CHECK(wait_kind(&recorder, VERIFY_EVENT_OFFLINE));
    count_kind(&recorder, VERIFY_EVENT_OFFLINE, &last);
    CHECK(last.grace_end == grace_end);
    CHECK_INT(verify_keeper_get_status(keeper, &status), VERIFY_OK);
    CHECK_INT(verify_keeper_status_state(status, &state), 0);
    CHECK_INT(state, VERIFY_KEEPER_GRACE);
    CHECK_INT(verify_keeper_status_last_confirmed(status, &seen), 0);
    CHECK(seen == confirmed_at);
    CHECK_INT(verify_keeper_status_grace_end(status, &seen), 0);
    CHECK(seen == grace_end);
    CHECK_INT(verify_keeper_status_grace_end(NULL, &seen), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_keeper_status_last_confirmed(status, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    verify_keeper_status_free(status);
    CHECK(wait_kind(&recorder, VERIFY_EVENT_TROUBLE));

    /* Banned while offline: on reconnect the session ends with the reason. */
    host_ask("ban banned while offline", NULL, 0);
    host_ask("resume", NULL, 0);
    CHECK(wait_kind(&recorder, VERIFY_EVENT_ENDED));
    count_kind(&recorder, VERIFY_EVENT_ENDED, &last);
    CHECK_INT(last.code, VERIFY_DISABLED);
    CHECK(strcmp(last.detail, "banned while offline") == 0);
    CHECK(count_kind(&recorder, VERIFY_EVENT_ONLINE, NULL) == 0);
    verify_keeper_free(keeper);

    /* The store was cleared: with the server stopped, no offline verdict. */
    host_ask("pause", NULL, 0);
    CHECK_INT(verify_single_login(client, card, "C-OFFLINE-MAC", NULL, &reply), VERIFY_ERR_NETWORK);
    CHECK(reply == NULL);
    verify_client_free(client);
    pthread_mutex_destroy(&recorder.lock);
    return host_finish("offline");
}

/* N online logins, each storing the verdict: two of these run at once. */
int writer(const char *base_url, const char *app_id, const char *app_key, const char *card,
           const char *state_dir, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        verify_client *client = offline_client(base_url, app_id, app_key, state_dir);
        verify_reply *reply = NULL;
        CHECK_INT(verify_single_login(client, card, "C-WRITER-MAC", NULL, &reply), VERIFY_OK);
        verify_reply_free(reply);
        verify_client_free(client);
    }
    return host_finish("writer");
}

/* With the server stopped: licensed from a store that two writers wrote at once. */
int reader(const char *base_url, const char *app_id, const char *app_key, const char *card,
           const char *state_dir)
{
    verify_client *client = offline_client(base_url, app_id, app_key, state_dir);
    verify_reply *reply = NULL;
    CHECK_INT(verify_single_login(client, card, "C-WRITER-MAC", NULL, &reply), VERIFY_OFFLINE);
    CHECK_INT(verify_reply_offline(reply, NULL, NULL, NULL), 0);
    verify_reply_free(reply);
    verify_client_free(client);
    return host_finish("reader");
}

/* Account mode: logged in once online; with the server stopped, a wrong password gets
 * VERIFY_ERR_OFFLINE_PASSWORD (never an offline verdict), the right one VERIFY_OFFLINE. */
int password(const char *base_url, const char *app_id, const char *app_key, const char *user,
             const char *pass, const char *state_dir)
{
    verify_client *client = offline_client(base_url, app_id, app_key, state_dir);
    verify_reply *reply = NULL;
    CHECK_INT(verify_user_login(client, user, pass, "C-PASSWORD-MAC", &reply), VERIFY_OK);
    verify_reply_free(reply);
    reply = NULL;
    verify_client_free(client);

    host_ask("pause", NULL, 0);
    client = offline_client(base_url, app_id, app_key, state_dir);
    CHECK_INT(verify_user_login(client, user, "any wrong password", "C-PASSWORD-MAC", &reply),
              VERIFY_ERR_OFFLINE_PASSWORD);
    CHECK(reply == NULL);
    CHECK(strstr(verify_last_error_message(), "password") != NULL);
    CHECK_INT(verify_user_login(client, user, pass, "C-PASSWORD-MAC", &reply), VERIFY_OFFLINE);
    CHECK_INT(verify_reply_offline(reply, NULL, NULL, NULL), 0);
    verify_reply_free(reply);
    verify_client_free(client);
    return host_finish("password");
}

/* With the server stopped, on another machine (run in a mount namespace with another
 * machine-id): the store does not open, so the failure as it is; offline verdicts with a
 * state folder that is a file: the client is refused at once. */
int stranger(const char *base_url, const char *app_id, const char *app_key, const char *card,
             const char *state_dir)
{
    verify_client *client = offline_client(base_url, app_id, app_key, state_dir);
    verify_client_options *options = NULL;
    verify_reply *reply = NULL;
    CHECK_INT(verify_single_login(client, card, "C-WRITER-MAC", NULL, &reply), VERIFY_ERR_NETWORK);
    CHECK(reply == NULL);
    verify_client_free(client);

    client = NULL;
    options = offline_options("/proc/self/status");
    CHECK_INT(verify_client_new_with_options(base_url, app_id, app_key, options, &client),
              VERIFY_ERR_STATE_FOLDER);
    CHECK(client == NULL);
    verify_client_options_free(options);
    return host_finish("stranger");
}
