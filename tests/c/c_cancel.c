/*
 * c_cancel.c: a call cancelled in flight, as a C host cancels it: a verify_cancel token
 * attached to the calling thread around the call, cancelled from another thread (run by
 * tests/c/cancel.rs on loopback, and by the network lab's tests/lab/cancel.rs).
 *
 *   c_cancel contract BASE_URL APP_ID APP_KEY
 *       the rules of attach and detach: NULL, nesting, the wrong order, a token freed while
 *       attached; a cancelled token fails a call at once and sends nothing ("@@ count" asks
 *       the test how many requests reached the server); detached, calls run again
 *   c_cancel inflight BASE_URL APP_ID APP_KEY AFTER_MS CALL [CARD MAC]
 *       CALL (bulletin, or login with CARD and MAC) on a thread a token is attached to,
 *       cancelled by another thread AFTER_MS after the call started; prints
 *       "cancelled code=C after_cancel_ms=T message=M" (T: from the cancel to the return)
 *
 * With $VERIFY_HOST_CA the client trusts that CA too (the lab's https sandbox).
 */

#include <pthread.h>
#include <time.h>

#include "host.h"

static int contract(const char *base_url, const char *app_id, const char *app_key)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    verify_cancel *outer = NULL;
    verify_cancel *inner = NULL;
    verify_cancel *freed = NULL;
    verify_reply *reply = NULL;
    int32_t cancelled = -1;
    char answer[64];

    CHECK_INT(verify_cancel_attach(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_cancel_detach(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_cancel_new(&outer), VERIFY_OK);
    CHECK_INT(verify_cancel_new(&inner), VERIFY_OK);
    CHECK_INT(verify_cancel_is_cancelled(outer, &cancelled), VERIFY_OK);
    CHECK_INT(cancelled, 0);
    CHECK_INT(verify_cancel_is_cancelled(NULL, &cancelled), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK_INT(verify_cancel_is_cancelled(outer, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    /* Not attached: detach refuses. */
    CHECK_INT(verify_cancel_detach(outer), VERIFY_ERR_INVALID_ARGUMENT);

    /* Nested: the inner token watches; the outer one's cancel does not reach the call. */
    CHECK_INT(verify_cancel_attach(outer), VERIFY_OK);
    CHECK_INT(verify_cancel_attach(inner), VERIFY_OK);
    CHECK_INT(verify_cancel_cancel(outer), VERIFY_OK);
    CHECK_INT(verify_cancel_is_cancelled(outer, &cancelled), VERIFY_OK);
    CHECK_INT(cancelled, 1);
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    verify_reply_free(reply);
    reply = NULL;
    /* The wrong order is refused and changes nothing. */
    CHECK_INT(verify_cancel_detach(outer), VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(strstr(verify_last_error_message(), "reverse order") != NULL);
    CHECK_INT(verify_cancel_detach(inner), VERIFY_OK);

    /* The outer token again: cancelled, a call fails at once and sends nothing. */
    host_ask("count", answer, sizeof answer);
    {
        long before = strtol(answer, NULL, 10);
        CHECK_INT(verify_user_recharge(client, "someone", "SOME-CARD", &reply),
                  VERIFY_ERR_CANCELLED);
        CHECK(reply == NULL);
        CHECK(strstr(verify_last_error_message(), "UserRecharge cancelled by the host before its "
                                                  "request was sent") != NULL);
        host_ask("count", answer, sizeof answer);
        CHECK_INT(strtol(answer, NULL, 10), before);
    }
    CHECK_INT(verify_cancel_detach(outer), VERIFY_OK);
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    verify_reply_free(reply);
    reply = NULL;

    /* Freed while attached: the thread keeps its own reference until detached. */
    CHECK_INT(verify_cancel_new(&freed), VERIFY_OK);
    CHECK_INT(verify_cancel_attach(freed), VERIFY_OK);
    verify_cancel_free(freed);
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_cancel_detach(freed), VERIFY_OK);

    verify_cancel_free(inner);
    verify_cancel_free(outer);
    verify_client_free(client);
    return host_finish("contract");
}

struct canceller {
    verify_cancel *token;
    long after_ms;
    long cancelled_at;
};

static void *cancel_later(void *arg)
{
    struct canceller *canceller = (struct canceller *)arg;
    struct timespec pause;
    pause.tv_sec = canceller->after_ms / 1000;
    pause.tv_nsec = (canceller->after_ms % 1000) * 1000000L;
    nanosleep(&pause, NULL);
    canceller->cancelled_at = host_now_ms();
    verify_cancel_cancel(canceller->token);
    return NULL;
}

static int inflight(const char *base_url, const char *app_id, const char *app_key, long after_ms,
                    const char *call, const char *card, const char *mac)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    verify_reply *reply = NULL;
    struct canceller canceller;
    pthread_t thread;
    int32_t code;
    long returned;
    char *message;

    CHECK_INT(verify_cancel_new(&canceller.token), VERIFY_OK);
    canceller.after_ms = after_ms;
    canceller.cancelled_at = 0;
    CHECK_INT(verify_cancel_attach(canceller.token), VERIFY_OK);
    CHECK_INT(pthread_create(&thread, NULL, cancel_later, &canceller), 0);
    if (strcmp(call, "login") == 0 && card != NULL && mac != NULL) {
        code = verify_single_login(client, card, mac, NULL, &reply);
    } else {
        code = verify_get_bulletin(client, &reply);
    }
    returned = host_now_ms();
    message = host_last_error_copy();
    CHECK_INT(verify_cancel_detach(canceller.token), VERIFY_OK);
    CHECK_INT(pthread_join(thread, NULL), 0);
    CHECK_INT(code, VERIFY_ERR_CANCELLED);
    CHECK(reply == NULL);
    printf("cancelled code=%d after_cancel_ms=%ld message=%s\n", (int)code,
           returned - canceller.cancelled_at, message != NULL ? message : "");
    free(message);
    verify_reply_free(reply);
    verify_cancel_free(canceller.token);
    verify_client_free(client);
    return host_finish("inflight");
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "contract") == 0) {
        return contract(argv[2], argv[3], argv[4]);
    }
    if (argc >= 7 && strcmp(argv[1], "inflight") == 0) {
        return inflight(argv[2], argv[3], argv[4], strtol(argv[5], NULL, 10), argv[6],
                        argc >= 9 ? argv[7] : NULL, argc >= 9 ? argv[8] : NULL);
    }
    fprintf(stderr, "usage: c_cancel contract BASE_URL APP_ID APP_KEY\n"
                    "       c_cancel inflight BASE_URL APP_ID APP_KEY AFTER_MS CALL [CARD MAC]\n");
    return 2;
}
