/*
 * console_host.c: the licensed program of the console test (tests/console/console.rs). It logs in
 * with a card, keeps the session alive with a keeper (short interval) and prints every
 * keeper event on its own line, until the session ends or the time limit passes:
 *
 *   console_host BASE_URL APP_ID APP_KEY CARD MACHINE INTERVAL_MS LIMIT_S
 *
 * stdout lines, each flushed:
 *   LOGIN code=200 expire_at=...
 *   EVENT ALIVE code=200 expire_at=...
 *   EVENT MESSAGE text=...
 *   EVENT TROUBLE code=... message=...
 *   EVENT ENDED code=... remark=...
 *   DONE state=...          (then exit 0; 1 when the login failed or the limit passed)
 *
 * Built with cc -std=c99 -Wall -Wextra -Werror against include/verify.h and libverify.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verify.h"

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* Runs on the keeper's event thread; stdout lines are written whole and flushed. */
static void VERIFY_CALL on_event(void *user_data, const verify_event *event)
{
    (void)user_data;
    switch (event->kind) {
        case VERIFY_EVENT_ALIVE:
            printf("EVENT ALIVE code=%d expire_at=%s\n", (int)event->code,
                   or_empty(event->expire_at));
            break;
        case VERIFY_EVENT_MESSAGE:
            printf("EVENT MESSAGE text=%s\n", or_empty(event->text));
            break;
        case VERIFY_EVENT_TROUBLE:
            printf("EVENT TROUBLE code=%d message=%s\n", (int)event->code,
                   or_empty(event->message));
            break;
        case VERIFY_EVENT_ENDED:
            printf("EVENT ENDED code=%d remark=%s\n", (int)event->code, or_empty(event->remark));
            break;
        default:
            printf("EVENT OTHER kind=%d code=%d\n", (int)event->kind, (int)event->code);
            break;
    }
    fflush(stdout);
}

static void pause_ms(long ms)
{
    struct timespec t;
    t.tv_sec = ms / 1000;
    t.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    verify_keeper_options *options = NULL;
    verify_keeper *keeper = NULL;
    const char *token = NULL;
    const char *expire_at = NULL;
    char token_copy[128];
    int32_t code;
    long interval_ms;
    long limit_s;
    long waited_ms = 0;
    int32_t state = 0;
    int status = 1;

    if (argc != 8) {
        fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY CARD MACHINE INTERVAL_MS LIMIT_S\n",
                argv[0]);
        return 2;
    }
    interval_ms = strtol(argv[6], NULL, 10);
    limit_s = strtol(argv[7], NULL, 10);

    code = verify_client_new(argv[1], argv[2], argv[3], &client);
    if (code != VERIFY_OK) {
        printf("CLIENT code=%d %s\n", (int)code, verify_last_error_message());
        return 1;
    }
    code = verify_single_login(client, argv[4], argv[5], "console test host", &reply);
    if (reply != NULL) {
        verify_reply_str(reply, "/data/expire_at", &expire_at);
    }
    printf("LOGIN code=%d expire_at=%s\n", (int)code, or_empty(expire_at));
    fflush(stdout);
    if (code != VERIFY_OK || reply == NULL || verify_reply_str(reply, "/data/token", &token) != 0 ||
        token == NULL || strlen(token) >= sizeof token_copy) {
        verify_reply_free(reply);
        verify_client_free(client);
        return 1;
    }
    strcpy(token_copy, token);
    verify_reply_free(reply);
    reply = NULL;

    if (verify_keeper_options_new(&options) != VERIFY_OK ||
        verify_keeper_options_set_interval(options, (uint32_t)interval_ms) != VERIFY_OK ||
        verify_keeper_options_set_callback(options, on_event, NULL) != VERIFY_OK) {
        printf("OPTIONS failed: %s\n", verify_last_error_message());
        verify_keeper_options_free(options);
        verify_client_free(client);
        return 1;
    }
    code = verify_keeper_start(client, token_copy, VERIFY_SESSION_CARD, options, &keeper);
    verify_keeper_options_free(options);
    if (code != VERIFY_OK) {
        printf("KEEPER code=%d %s\n", (int)code, verify_last_error_message());
        verify_client_free(client);
        return 1;
    }

    /* Poll the keeper's state (thread-safe) until it ends or the limit passes. */
    for (;;) {
        state = verify_keeper_state(keeper);
        if (state == VERIFY_KEEPER_ENDED) {
            status = 0;
            break;
        }
        if (waited_ms >= limit_s * 1000) {
            break;
        }
        pause_ms(50);
        waited_ms += 50;
    }
    verify_keeper_free(keeper);
    printf("DONE state=%d\n", (int)state);
    fflush(stdout);
    verify_client_free(client);
    return status;
}
