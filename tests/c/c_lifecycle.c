/*
 * c_lifecycle.c: a host's process around the library: fork and exit (run by
 * tests/c/lifecycle.rs).
 *
 *   c_lifecycle fork BASE_URL APP_ID APP_KEY CARD
 *       A client with a kept-alive connection and a running keeper (heartbeat every second)
 *       forks. At once, parent and child each make 1,000 calls on the client from 8 threads:
 *       the parent GetBulletin, the child GetVariable "role"; every reply must be the one
 *       asked for. In the child the keeper is ENDED with VERIFY_ERR_SYSTEM and a message
 *       saying the process forked; stopping and freeing it, and freeing the client, return
 *       cleanly. The parent's keeper stays ALIVE and beats again after the child is gone.
 *       Both print a RESULT line; the parent's exit status covers the child's.
 *
 *   c_lifecycle exit WORK HOW BASE_URL APP_ID APP_KEY CARD STATE_DIR
 *       Starts WORK, then ends the process by HOW without freeing anything:
 *       WORK  keeper       a logged-in session with a running keeper (heartbeat every second)
 *             budget       a login that goes on in the background after its start budget
 *                          (offline verdicts on; "@@ slow" asks the test to hold the login)
 *             lookup       a call on another thread whose name lookup does not answer: the
 *                          host answers no query sent to 127.0.0.1:53 (the test runs it in
 *                          namespaces of its own, where that is the name server); it waits
 *                          for the query to arrive
 *       HOW   return       returns from main
 *             exit         calls exit(0) on another thread than main's
 *       It prints "ending" just before; the test requires the process to end within seconds
 *       with status 0 and nothing on stderr.
 *
 * POSIX: fork, threads, sockets (-D_POSIX_C_SOURCE=200809L -pthread).
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"

#define THREADS 8
#define CALLS_PER_THREAD 125
#define BULLETIN "\xe5\x85\xac\xe5\x91\x8a bulletin" /* 公告 bulletin */
#define ROLE "the child's variable"

struct worker {
    const verify_client *client;
    int child;
    int succeeded;
};

/* One side's calls: the parent's read the bulletin, the child's the variable "role". */
static void *calls(void *argument)
{
    struct worker *worker = (struct worker *)argument;
    int i;
    for (i = 0; i < CALLS_PER_THREAD; i++) {
        verify_reply *reply = NULL;
        const char *text = NULL;
        if (worker->child) {
            if (verify_get_variable(worker->client, "role", &reply) == VERIFY_OK &&
                verify_reply_str(reply, "/data/value", &text) == 0 && strcmp(text, ROLE) == 0) {
                worker->succeeded++;
            }
        } else if (verify_get_bulletin(worker->client, &reply) == VERIFY_OK &&
                   verify_reply_str(reply, "/data/bulletin", &text) == 0 &&
                   strcmp(text, BULLETIN) == 0) {
            worker->succeeded++;
        }
        verify_reply_free(reply);
    }
    return NULL;
}

/* THREADS threads of `calls`; the number of calls that got the right reply. */
static int many_calls(const verify_client *client, int child)
{
    struct worker workers[THREADS];
    pthread_t threads[THREADS];
    int i, started = 0, total = 0;
    for (i = 0; i < THREADS; i++) {
        workers[i].client = client;
        workers[i].child = child;
        workers[i].succeeded = 0;
        if (pthread_create(&threads[i], NULL, calls, &workers[i]) != 0) {
            break;
        }
        started++;
    }
    CHECK_INT(started, THREADS);
    for (i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        total += workers[i].succeeded;
    }
    return total;
}

/* A keeper of the login of `card` (heartbeat every second), or NULL. */
static verify_keeper *keep(const verify_client *client, const char *card)
{
    verify_reply *login = NULL;
    verify_keeper_options *options = NULL;
    verify_keeper *keeper = NULL;
    CHECK_INT(verify_single_login(client, card, "C-LIFECYCLE-MAC", NULL, &login), VERIFY_OK);
    CHECK_INT(verify_keeper_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_keeper_options_set_interval(options, 1000), VERIFY_OK);
    CHECK_INT(verify_keeper_start_from_reply(client, login, options, &keeper), VERIFY_OK);
    verify_keeper_options_free(options);
    verify_reply_free(login);
    return keeper;
}

static void sleep_ms(long ms)
{
    struct timespec pause;
    pause.tv_sec = ms / 1000;
    pause.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&pause, NULL);
}

static uint64_t beats_ok(const verify_keeper *keeper)
{
    verify_keeper_status *status = NULL;
    uint64_t ok = 0, failed = 0;
    if (verify_keeper_get_status(keeper, &status) == VERIFY_OK) {
        CHECK_INT(verify_keeper_status_counts(status, &ok, &failed), 0);
    }
    verify_keeper_status_free(status);
    return ok;
}

static int child_side(verify_client *client, verify_keeper *keeper)
{
    verify_keeper_status *status = NULL;
    const char *message = NULL;
    int32_t state = 0, code = 0;
    int total;

    CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ENDED);
    CHECK_INT(verify_keeper_get_status(keeper, &status), VERIFY_OK);
    CHECK_INT(verify_keeper_status_state(status, &state), 0);
    CHECK_INT(state, VERIFY_KEEPER_ENDED);
    CHECK_INT(verify_keeper_status_last_code(status, &code), 0);
    CHECK_INT(code, VERIFY_ERR_SYSTEM);
    CHECK_INT(verify_keeper_status_last_message(status, &message), 0);
    CHECK(message != NULL && strstr(message, "forked") != NULL);
    verify_keeper_status_free(status);

    total = many_calls(client, 1);
    CHECK_INT(total, THREADS * CALLS_PER_THREAD);
    printf("      child: %d of %d calls got their reply\n", total, THREADS * CALLS_PER_THREAD);

    CHECK_INT(verify_keeper_stop(keeper), VERIFY_OK);
    CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ENDED);
    verify_keeper_free(keeper);
    verify_client_free(client);
    return host_finish("fork child");
}

static int fork_scenario(const char *base_url, const char *app_id, const char *app_key,
                         const char *card)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    verify_reply *reply = NULL;
    verify_keeper *keeper;
    uint64_t beats;
    long deadline;
    int total, status = 0;
    pid_t child;

    /* A kept-alive connection, and a keeper beating over the client's connections. */
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    verify_reply_free(reply);
    keeper = keep(client, card);
    if (keeper == NULL) {
        verify_client_free(client);
        return host_finish("fork parent");
    }
    CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ALIVE);

    fflush(stdout);
    child = fork();
    if (child == 0) {
        return child_side(client, keeper);
    }
    CHECK(child > 0);

    total = many_calls(client, 0);
    CHECK_INT(total, THREADS * CALLS_PER_THREAD);
    printf("      parent: %d of %d calls got their reply\n", total, THREADS * CALLS_PER_THREAD);
    if (child > 0) {
        CHECK_INT(waitpid(child, &status, 0), child);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }

    /* The parent noticed nothing: its keeper is alive and beats again after the child
     * closed what it inherited. */
    CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ALIVE);
    beats = beats_ok(keeper);
    deadline = host_now_ms() + 10000L * host_slack();
    while (beats_ok(keeper) <= beats && host_now_ms() < deadline) {
        sleep_ms(20);
    }
    CHECK(beats_ok(keeper) > beats);
    CHECK_INT(verify_keeper_state(keeper), VERIFY_KEEPER_ALIVE);
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    verify_reply_free(reply);

    CHECK_INT(verify_keeper_stop(keeper), VERIFY_OK);
    verify_keeper_free(keeper);
    verify_client_free(client);
    return host_finish("fork parent");
}

/* A call on its own thread: it blocks in a name lookup that never ends. */
static void *blocked_call(void *argument)
{
    verify_reply *reply = NULL;
    verify_get_bulletin((const verify_client *)argument, &reply);
    verify_reply_free(reply);
    return NULL;
}

static void *exit_now(void *argument)
{
    (void)argument;
    exit(0);
}

/* A name server on 127.0.0.1:53 that reads and never answers; waits for the first query
 * (up to 10 s). Returns the socket (left open), or -1. */
static int silent_name_server(const verify_client *client, pthread_t *caller)
{
    struct sockaddr_in address;
    struct timeval wait;
    char query[512];
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (!CHECK(fd >= 0)) {
        return -1;
    }
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(53);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    wait.tv_sec = 10;
    wait.tv_usec = 0;
    if (!CHECK(bind(fd, (struct sockaddr *)&address, sizeof address) == 0) ||
        !CHECK(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) == 0) ||
        !CHECK_INT(pthread_create(caller, NULL, blocked_call, (void *)client), 0)) {
        return -1;
    }
    CHECK(recv(fd, query, sizeof query, 0) > 0);
    return fd;
}

static int exit_scenario(const char *work, const char *how, const char *base_url,
                         const char *app_id, const char *app_key, const char *card,
                         const char *state_dir)
{
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    pthread_t thread;

    CHECK_INT(verify_client_options_new(&options), VERIFY_OK);
    if (strcmp(work, "budget") == 0) {
        CHECK_INT(verify_client_options_set_state_folder(options, state_dir), VERIFY_OK);
        CHECK_INT(verify_client_options_set_offline_grace(options, 3600), VERIFY_OK);
        CHECK_INT(verify_client_options_set_start_budget(options, 300), VERIFY_OK);
        CHECK_INT(verify_client_options_set_timeouts(options, 2000, 60000), VERIFY_OK);
    }
    CHECK_INT(verify_client_new_with_options(base_url, app_id, app_key, options, &client),
              VERIFY_OK);
    verify_client_options_free(options);
    if (client == NULL) {
        return host_finish("exit");
    }
    if (strcmp(work, "keeper") == 0) {
        CHECK(keep(client, card) != NULL);
    } else if (strcmp(work, "budget") == 0) {
        CHECK_INT(verify_single_login(client, card, "C-LIFECYCLE-MAC", NULL, &reply), VERIFY_OK);
        verify_reply_free(reply);
        reply = NULL;
        host_ask("slow", NULL, 0);
        /* The server holds the login: the stored verdict answers after 300 ms, and the login
         * goes on in the background. */
        CHECK_INT(verify_single_login(client, card, "C-LIFECYCLE-MAC", NULL, &reply),
                  VERIFY_OFFLINE);
        verify_reply_free(reply);
    } else if (strcmp(work, "lookup") == 0) {
        CHECK(silent_name_server(client, &thread) >= 0);
    } else {
        CHECK(!"a known WORK");
    }
    /* Nothing is freed: the process ends with the work in flight. */
    host_finish("exit");
    printf("ending\n");
    fflush(stdout);
    if (host_failed != 0) {
        return 1;
    }
    if (strcmp(how, "exit") == 0) {
        if (pthread_create(&thread, NULL, exit_now, NULL) == 0) {
            pthread_join(thread, NULL);
        }
        return 1; /* not reached */
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "fork") == 0) {
        return fork_scenario(argv[2], argv[3], argv[4], argv[5]);
    }
    if (argc == 9 && strcmp(argv[1], "exit") == 0) {
        return exit_scenario(argv[2], argv[3], argv[4], argv[5], argv[6], argv[7], argv[8]);
    }
    fprintf(stderr, "usage: %s fork BASE_URL APP_ID APP_KEY CARD\n", argv[0]);
    fprintf(stderr, "       %s exit WORK HOW BASE_URL APP_ID APP_KEY CARD STATE_DIR\n", argv[0]);
    return 2;
}
