/*
 * c_threads.c: one verify_client shared by POSIX threads (run by tests/c/threads.rs).
 *
 *   c_threads many BASE_URL APP_ID APP_KEY     8 threads x 125 verify_get_bulletin on one
 *                                               client: every call succeeds and reads the
 *                                               bulletin; each thread keeps its own last error;
 *                                               then 8 threads read one reply at once
 *   c_threads overlap BASE_URL APP_ID APP_KEY  8 threads make one slow call each (the sandbox
 *                                               delays GetBulletin); each prints
 *                                               "returned THREAD CODE" the moment its call
 *                                               returns, so that the test can count the
 *                                               requests the sandbox had received by then
 *
 * POSIX: threads (-D_POSIX_C_SOURCE=200809L -pthread).
 */

#include <pthread.h>

#include "host.h"

#define THREADS 8
#define CALLS_PER_THREAD 125
#define BULLETIN "\xe5\x85\xac\xe5\x91\x8a bulletin" /* 公告 bulletin */

struct worker {
    const verify_client *client;
    int index;
    int calls;
    int succeeded;
    int own_last_error; /* the thread's last error was its own after a failing call */
    pthread_mutex_t *print_lock;
};

static void *many_calls(void *argument)
{
    struct worker *worker = (struct worker *)argument;
    int i;
    for (i = 0; i < worker->calls; i++) {
        verify_reply *reply = NULL;
        const char *bulletin = NULL;
        if (verify_get_bulletin(worker->client, &reply) == VERIFY_OK &&
            verify_reply_str(reply, "/data/bulletin", &bulletin) == 0 &&
            strcmp(bulletin, BULLETIN) == 0) {
            worker->succeeded++;
        }
        verify_reply_free(reply);
    }
    /* A failure of this thread is this thread's last error, whatever the others do. */
    worker->own_last_error = verify_reply_code(NULL) == VERIFY_ERR_INVALID_ARGUMENT &&
                             verify_last_error_code() == VERIFY_ERR_INVALID_ARGUMENT &&
                             strstr(verify_last_error_message(), "reply") != NULL;
    return NULL;
}

/* One reply read by several threads at once: the same borrowed strings for all. */
struct reader {
    const verify_reply *reply;
    const char *bulletin; /* what the main thread read first */
    const char *json;
    int same; /* every read gave the main thread's pointers */
};

static void *read_shared(void *argument)
{
    struct reader *reader = (struct reader *)argument;
    int i;
    reader->same = 1;
    for (i = 0; i < 200; i++) {
        const char *bulletin = NULL;
        const char *json = NULL;
        const char *code = NULL;
        int64_t number = 0;
        char pointer[32];
        /* A new pointer each round: concurrent first reads of the same new string. */
        snprintf(pointer, sizeof pointer, "/data/missing_%d", i);
        if (verify_reply_str(reader->reply, "/data/bulletin", &bulletin) != 0 ||
            bulletin != reader->bulletin || verify_reply_json(reader->reply, NULL, &json) != 0 ||
            json != reader->json || verify_reply_str(reader->reply, "/code", &code) != 0 ||
            strcmp(code, "200") != 0 || verify_reply_int(reader->reply, "/code", &number) != 0 ||
            number != 200 ||
            verify_reply_str(reader->reply, pointer, &code) != VERIFY_ERR_NO_SUCH_FIELD) {
            reader->same = 0;
        }
    }
    return NULL;
}

static void shared_reply(const verify_client *client)
{
    struct reader readers[THREADS];
    pthread_t threads[THREADS];
    verify_reply *reply = NULL;
    const char *bulletin = NULL;
    const char *json = NULL;
    int i, started = 0;

    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    if (reply == NULL) {
        return;
    }
    CHECK_INT(verify_reply_str(reply, "/data/bulletin", &bulletin), 0);
    CHECK_INT(verify_reply_json(reply, NULL, &json), 0);
    for (i = 0; i < THREADS; i++) {
        readers[i].reply = reply;
        readers[i].bulletin = bulletin;
        readers[i].json = json;
        readers[i].same = 0;
        if (pthread_create(&threads[i], NULL, read_shared, &readers[i]) != 0) {
            break;
        }
        started++;
    }
    CHECK_INT(started, THREADS);
    for (i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        CHECK(readers[i].same);
    }
    verify_reply_free(reply);
}

static void *one_slow_call(void *argument)
{
    struct worker *worker = (struct worker *)argument;
    verify_reply *reply = NULL;
    int32_t code = verify_get_bulletin(worker->client, &reply);
    pthread_mutex_lock(worker->print_lock);
    printf("returned %d %d\n", worker->index, (int)code);
    fflush(stdout);
    pthread_mutex_unlock(worker->print_lock);
    worker->succeeded = code == VERIFY_OK;
    verify_reply_free(reply);
    return NULL;
}

static int run_workers(const char *scenario, const char *base_url, const char *app_id,
                       const char *app_key)
{
    int many = strcmp(scenario, "many") == 0;
    verify_client *client = host_client(base_url, app_id, app_key);
    struct worker workers[THREADS];
    pthread_t threads[THREADS];
    pthread_mutex_t print_lock;
    verify_reply *reply = NULL;
    char code[VERIFY_MACHINE_CODE_LEN + 1];
    int i, started = 0, total = 0;

    pthread_mutex_init(&print_lock, NULL);
    /* This thread's own last error, which the workers' failures must not replace. */
    CHECK_INT(verify_machine_code("\xff", code, sizeof code), VERIFY_ERR_INVALID_UTF8);
    if (!many) {
        /* The session first, so that the threads' calls are the only requests that overlap. */
        CHECK_INT(verify_init(client, &reply), VERIFY_OK);
        verify_reply_free(reply);
        reply = NULL;
        host_ask("slow", NULL, 0);
    }
    for (i = 0; i < THREADS; i++) {
        workers[i].client = client;
        workers[i].index = i;
        workers[i].calls = many ? CALLS_PER_THREAD : 1;
        workers[i].succeeded = 0;
        workers[i].own_last_error = 0;
        workers[i].print_lock = &print_lock;
        if (pthread_create(&threads[i], NULL, many ? many_calls : one_slow_call, &workers[i]) ==
            0) {
            started++;
        } else {
            break;
        }
    }
    CHECK_INT(started, THREADS);
    for (i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        total += workers[i].succeeded;
        if (many) {
            CHECK(workers[i].own_last_error);
        }
    }
    CHECK_INT(total, many ? THREADS * CALLS_PER_THREAD : THREADS);
    CHECK_INT(verify_last_error_code(), VERIFY_ERR_INVALID_UTF8);
    if (many) {
        shared_reply(client);
    }
    printf("      %d of %d calls succeeded\n", total, started * (many ? CALLS_PER_THREAD : 1));
    verify_client_free(client);
    pthread_mutex_destroy(&print_lock);
    return host_finish(scenario);
}

int main(int argc, char **argv)
{
    if (argc == 5 && (strcmp(argv[1], "many") == 0 || strcmp(argv[1], "overlap") == 0)) {
        return run_workers(argv[1], argv[2], argv[3], argv[4]);
    }
    fprintf(stderr, "usage: %s many|overlap BASE_URL APP_ID APP_KEY\n", argv[0]);
    return 2;
}
