/*
 * win_threads.c: one verify_client shared by several Windows threads (_beginthreadex), run
 * by tests/platforms/windows/threads.rs under Wine. The main thread logs in with a card; then THREADS threads
 * each make CALLS rounds on the shared client: a heartbeat of that session, a bulletin read
 * through its reply, a machine code, and a bad call whose last error must be the thread's
 * own (the last error is per thread). Every call must succeed; the host prints one line per
 * thread and the RESULT line.
 *
 *   win_threads BASE_URL APP_ID APP_KEY CARD THREADS CALLS
 */

#include <process.h>
#include <stdlib.h>
#include <windows.h>

#include "win_host.h"

struct worker {
    const verify_client *client;
    const char *token;
    int index;
    int calls;
    long ok;
    long failed;
    char first_failure[200];
};

static void failed(struct worker *w, const char *what, int32_t code)
{
    if (w->failed++ == 0) {
        snprintf(w->first_failure, sizeof w->first_failure, "%s: code %d", what, (int)code);
    }
}

static unsigned __stdcall work(void *arg)
{
    struct worker *w = (struct worker *)arg;
    char salt[32];
    char code[33];
    char first_code[33] = "";
    int i;

    snprintf(salt, sizeof salt, "thread-%d", w->index);
    for (i = 0; i < w->calls; i++) {
        verify_reply *reply = NULL;
        const char *text = NULL;
        int32_t rc = verify_heartbeat(w->client, w->token, VERIFY_SESSION_CARD, NULL, &reply);
        if (rc == VERIFY_OK && reply != NULL && verify_reply_code(reply) == VERIFY_OK) {
            w->ok++;
        } else {
            failed(w, "verify_heartbeat", rc);
        }
        verify_reply_free(reply);

        reply = NULL;
        rc = verify_get_bulletin(w->client, &reply);
        if (rc == VERIFY_OK && verify_reply_str(reply, "/data/bulletin", &text) == 0 && text[0]) {
            w->ok++;
        } else {
            failed(w, "verify_get_bulletin", rc);
        }
        verify_reply_free(reply);

        rc = verify_machine_code(salt, code, sizeof code);
        if (rc == VERIFY_OK && strlen(code) == 32 &&
            (!first_code[0] || !strcmp(code, first_code))) {
            strcpy(first_code, code);
            w->ok++;
        } else {
            failed(w, "verify_machine_code", rc);
        }

        /* a bad call; the last error of this thread says so, whatever the others do */
        rc = verify_heartbeat(w->client, w->token, 1000 + w->index, NULL, &reply);
        Sleep(0);
        if (rc == VERIFY_ERR_INVALID_ARGUMENT && reply == NULL &&
            verify_last_error_code() == VERIFY_ERR_INVALID_ARGUMENT) {
            w->ok++;
        } else {
            failed(w, "bad heartbeat kind", rc);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    verify_client *client = NULL;
    verify_reply *login = NULL;
    const char *token = NULL;
    struct worker *workers;
    HANDLE *threads;
    int count, calls, i;
    long total_ok = 0;

    if (argc != 7) {
        fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY CARD THREADS CALLS\n", argv[0]);
        return 2;
    }
    count = atoi(argv[5]);
    calls = atoi(argv[6]);
    if (count < 1 || count > 64 || calls < 1) {
        fprintf(stderr, "THREADS is 1..64, CALLS at least 1\n");
        return 2;
    }
    if (!CHECK_INT(verify_client_new(argv[1], argv[2], argv[3], &client), VERIFY_OK)) {
        return host_result();
    }
    if (!CHECK_INT(verify_single_login(client, argv[4], "WIN-THREADS-MACHINE", NULL, &login),
                   VERIFY_OK) ||
        !CHECK_INT(verify_reply_str(login, "/data/token", &token), 0)) {
        verify_reply_free(login);
        verify_client_free(client);
        return host_result();
    }

    workers = (struct worker *)calloc((size_t)count, sizeof *workers);
    threads = (HANDLE *)calloc((size_t)count, sizeof *threads);
    if (workers == NULL || threads == NULL) {
        return 3;
    }
    for (i = 0; i < count; i++) {
        workers[i].client = client;
        workers[i].token = token; /* borrowed from `login`, freed after the join */
        workers[i].index = i;
        workers[i].calls = calls;
        threads[i] = (HANDLE)_beginthreadex(NULL, 0, work, &workers[i], 0, NULL);
        CHECK(threads[i] != 0);
    }
    CHECK_INT(WaitForMultipleObjects((DWORD)count, threads, TRUE, 120000), WAIT_OBJECT_0);
    for (i = 0; i < count; i++) {
        CloseHandle(threads[i]);
        printf("thread %d: %ld ok, %ld failed%s%s\n", i, workers[i].ok, workers[i].failed,
               workers[i].failed ? ", first: " : "", workers[i].first_failure);
        CHECK_INT(workers[i].failed, 0);
        total_ok += workers[i].ok;
    }
    CHECK_INT(total_ok, (long long)count * calls * 4);
    printf("threads %d, calls %d, ok %ld\n", count, calls, total_ok);

    free(threads);
    free(workers);
    verify_reply_free(login);
    verify_client_free(client);
    return host_result();
}
