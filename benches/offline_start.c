/*
 * offline_start.c: offline-first figures of benches/run.sh (rows 15a-d), through the C ABI.
 *
 *   offline_start online    BASE_URL APP_ID APP_KEY CARD STATE_DIR N
 *   offline_start down      APP_ID APP_KEY CARD STATE_DIR N
 *   offline_start blackhole APP_ID APP_KEY CARD STATE_DIR N BUDGET_MS
 *   offline_start refusals  BASE_URL APP_ID APP_KEY STATE_DIR COUNT_CARD USER PASSWORD
 *   offline_start password  BASE_URL APP_ID APP_KEY STATE_DIR USER PASSWORD N
 *
 * A "start" is what a licensed program does first: verify_client_new_with_options (offline
 * verdicts on: STATE_DIR, 7 days of grace) and verify_single_login; its time runs from
 * before the client is made to the login's answer. `online` starts N times against the
 * server (the first stores the verdict); `down` N times against a loopback port where nothing
 * listens (the network down: the connect is refused at once); `blackhole` N times against a
 * port that swallows SYNs (a listener whose backlog of 0 one connection fills), with a start
 * budget of BUDGET_MS. Each prints `mode=M runs=N code=C median_us=U min_us=.. max_us=..`
 * (C: the last start's code). `refusals` stores a verdict, gets a refusal of that identity
 * (a count card used up: 1005; an account from another machine: 1022; a wrong password:
 * 1003), then starts with the network down, and prints `refusals=3 offline_verdicts=K`.
 * `password` prices the account password's hash (rows 15e, 15f): N online account logins
 * (client made to the answer) with offline verdicts on and N without, in turn, then, with
 * the network down, N logins with a wrong password and N with the right one; it prints
 * `mode=password runs=N on_us=.. off_us=.. extra_us=.. on_cpu_us=.. off_cpu_us=..
 * extra_cpu_us=.. guess_us=.. guess_min_us=.. guess_cpu_us=.. guess_cpu_min_us=..
 * guess_code=.. offline_us=.. offline_cpu_us=.. offline_code=..` (medians unless _min;
 * extra: on minus off; _cpu: the process's CPU time, which a loaded machine does not
 * inflate).
 */

#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "verify.h"

#define MAX_RUNS 1000

static long long now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

/* CPU time of the process (every thread), in microseconds. */
static long long cpu_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (long long)t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

static int compare(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* A loopback port: listening with a full backlog of 0 (`hole` 1: SYNs vanish), or closed
 * (`hole` 0: refused). *fds receives what to keep open. */
static int loopback_port(int hole, int fds[2])
{
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(listener, 0) != 0 || getsockname(listener, (struct sockaddr *)&addr, &len) != 0) {
        perror("offline_start: listener");
        exit(1);
    }
    fds[0] = listener;
    fds[1] = -1;
    if (hole) {
        fds[1] = socket(AF_INET, SOCK_STREAM, 0);
        if (fds[1] < 0 || connect(fds[1], (struct sockaddr *)&addr, sizeof addr) != 0) {
            perror("offline_start: filler");
            exit(1);
        }
    } else {
        close(listener);
        fds[0] = -1;
    }
    return ntohs(addr.sin_port);
}

/* One start; returns the login's code and adds its time to *took_us. */
static int32_t start(const char *url, const char *app_id, const char *app_key, const char *card,
                     const char *mac, const char *state, unsigned budget_ms, long long *took_us)
{
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    long long began = now_us();
    int32_t code = verify_client_options_new(&options);
    if (code == VERIFY_OK) {
        code = verify_client_options_set_state_folder(options, state);
    }
    if (code == VERIFY_OK) {
        code = verify_client_options_set_offline_grace(options, 7 * 24 * 3600);
    }
    if (code == VERIFY_OK) {
        code = verify_client_options_set_start_budget(options, budget_ms);
    }
    if (code == VERIFY_OK) {
        code = verify_client_new_with_options(url, app_id, app_key, options, &client);
    }
    verify_client_options_free(options);
    if (code == VERIFY_OK) {
        code = verify_single_login(client, card, mac, NULL, &reply);
    }
    *took_us = now_us() - began;
    verify_reply_free(reply);
    verify_client_free(client);
    return code;
}

static int starts(const char *mode, const char *url, char **argv, int runs, unsigned budget_ms)
{
    static long long took[MAX_RUNS];
    int32_t code = 0;
    int i;
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "offline_start: N must be 1..%d\n", MAX_RUNS);
        return 2;
    }
    for (i = 0; i < runs; i++) {
        code = start(url, argv[0], argv[1], argv[2], "BENCH-OFFLINE-MAC", argv[3], budget_ms,
                     &took[i]);
    }
    qsort(took, (size_t)runs, sizeof took[0], compare);
    printf("mode=%s runs=%d code=%d median_us=%lld min_us=%lld max_us=%lld\n", mode, runs,
           (int)code, took[runs / 2], took[0], took[runs - 1]);
    return 0;
}

/* Stores a verdict with `login`, gets the server's refusal with `refuse`, then starts with the
 * network down: returns 1 when that start was an offline verdict. */
static int refusal(const char *url, const char *down, const char *app_id, const char *app_key,
                   const char *state, const char *what, int32_t expected,
                   int32_t (*login)(verify_client *, const char *),
                   int32_t (*refuse)(verify_client *, const char *), const char *arg)
{
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    int32_t first, refused, after;
    int offline = 0, round;
    verify_client_options_new(&options);
    verify_client_options_set_state_folder(options, state);
    verify_client_options_set_offline_grace(options, 7 * 24 * 3600);
    for (round = 0; round < 2; round++) {
        verify_client_new_with_options(round == 0 ? url : down, app_id, app_key, options, &client);
        if (round == 0) {
            first = login(client, arg);
            refused = refuse(client, arg);
            printf("refusal %s: login %d, then %d (expected %d)\n", what, (int)first, (int)refused,
                   (int)expected);
            if (first != VERIFY_OK || refused != expected) {
                fprintf(stderr, "offline_start: %s did not go as planned\n", what);
                exit(1);
            }
        } else {
            after = login(client, arg);
            offline = after == VERIFY_OFFLINE;
            printf("refusal %s: the start with the network down: %d\n", what, (int)after);
        }
        verify_client_free(client);
        client = NULL;
    }
    verify_client_options_free(options);
    return offline;
}

static const char *user_password;

static int32_t card_login(verify_client *client, const char *card)
{
    verify_reply *reply = NULL;
    int32_t code = verify_single_login(client, card, "BENCH-REFUSAL-MAC", NULL, &reply);
    verify_reply_free(reply);
    return code;
}

static int32_t user_login_a(verify_client *client, const char *user)
{
    verify_reply *reply = NULL;
    int32_t code = verify_user_login(client, user, user_password, "BENCH-MACHINE-A", &reply);
    verify_reply_free(reply);
    return code;
}

static int32_t user_login_b(verify_client *client, const char *user)
{
    verify_reply *reply = NULL;
    int32_t code = verify_user_login(client, user, user_password, "BENCH-MACHINE-B", &reply);
    verify_reply_free(reply);
    return code;
}

static int32_t user_login_wrong(verify_client *client, const char *user)
{
    verify_reply *reply = NULL;
    int32_t code = verify_user_login(client, user, "not-the-password", "BENCH-MACHINE-A", &reply);
    verify_reply_free(reply);
    return code;
}

/* One account login on a new client (offline verdicts on when `state` is not NULL): its wall
 * time and the process's CPU time meanwhile (on a loaded machine the wall time of a hash
 * grows with the wait for a CPU; its CPU time does not). */
static int32_t account_start(const char *url, const char *app_id, const char *app_key,
                             const char *state, const char *user, const char *password,
                             long long *took_us, long long *cpu_took_us)
{
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    long long began = now_us(), cpu_began = cpu_us();
    int32_t code = verify_client_options_new(&options);
    if (code == VERIFY_OK && state != NULL) {
        code = verify_client_options_set_state_folder(options, state);
        if (code == VERIFY_OK) {
            code = verify_client_options_set_offline_grace(options, 7 * 24 * 3600);
        }
    }
    if (code == VERIFY_OK) {
        code = verify_client_new_with_options(url, app_id, app_key, options, &client);
    }
    verify_client_options_free(options);
    if (code == VERIFY_OK) {
        code = verify_user_login(client, user, password, "BENCH-MACHINE-A", &reply);
    }
    *took_us = now_us() - began;
    *cpu_took_us = cpu_us() - cpu_began;
    verify_reply_free(reply);
    verify_client_free(client);
    return code;
}

static long long median(long long *took, int runs)
{
    qsort(took, (size_t)runs, sizeof took[0], compare);
    return took[runs / 2];
}

static int password_cost(const char *url, const char *down, char **argv, int runs)
{
    static long long on[MAX_RUNS], off[MAX_RUNS], guess[MAX_RUNS], right[MAX_RUNS];
    static long long on_cpu[MAX_RUNS], off_cpu[MAX_RUNS], guess_cpu[MAX_RUNS];
    static long long right_cpu[MAX_RUNS];
    const char *app_id = argv[0], *app_key = argv[1], *state = argv[2], *user = argv[3];
    const char *password = argv[4];
    int32_t guess_code = 0, offline_code = 0;
    long long on_us, off_us, on_cpu_us, off_cpu_us, guess_us, guess_cpu_us;
    int i;
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "offline_start: N must be 1..%d\n", MAX_RUNS);
        return 2;
    }
    for (i = 0; i < runs; i++) {
        if (account_start(url, app_id, app_key, state, user, password, &on[i], &on_cpu[i]) !=
                VERIFY_OK ||
            account_start(url, app_id, app_key, NULL, user, password, &off[i], &off_cpu[i]) !=
                VERIFY_OK) {
            fprintf(stderr, "offline_start: the account login failed\n");
            return 1;
        }
    }
    for (i = 0; i < runs; i++) {
        guess_code = account_start(down, app_id, app_key, state, user, "not-the-password",
                                   &guess[i], &guess_cpu[i]);
        offline_code =
            account_start(down, app_id, app_key, state, user, password, &right[i], &right_cpu[i]);
    }
    on_us = median(on, runs);
    off_us = median(off, runs);
    on_cpu_us = median(on_cpu, runs);
    off_cpu_us = median(off_cpu, runs);
    guess_us = median(guess, runs); /* sorted: [0] is the fastest */
    guess_cpu_us = median(guess_cpu, runs);
    printf("mode=password runs=%d on_us=%lld off_us=%lld extra_us=%lld on_cpu_us=%lld "
           "off_cpu_us=%lld extra_cpu_us=%lld guess_us=%lld guess_min_us=%lld "
           "guess_cpu_us=%lld guess_cpu_min_us=%lld guess_code=%d offline_us=%lld "
           "offline_cpu_us=%lld offline_code=%d\n",
           runs, on_us, off_us, on_us - off_us, on_cpu_us, off_cpu_us, on_cpu_us - off_cpu_us,
           guess_us, guess[0], guess_cpu_us, guess_cpu[0], (int)guess_code, median(right, runs),
           median(right_cpu, runs), (int)offline_code);
    return 0;
}

int main(int argc, char **argv)
{
    char url[64];
    int fds[2];
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "online") == 0 && argc == 8) {
        return starts(mode, argv[2], argv + 3, atoi(argv[7]), 0);
    }
    if (strcmp(mode, "down") == 0 && argc == 7) {
        snprintf(url, sizeof url, "http://127.0.0.1:%d", loopback_port(0, fds));
        return starts(mode, url, argv + 2, atoi(argv[6]), 0);
    }
    if (strcmp(mode, "blackhole") == 0 && argc == 8) {
        snprintf(url, sizeof url, "http://127.0.0.1:%d", loopback_port(1, fds));
        return starts(mode, url, argv + 2, atoi(argv[6]), (unsigned)atoi(argv[7]));
    }
    if (strcmp(mode, "refusals") == 0 && argc == 9) {
        int verdicts = 0;
        snprintf(url, sizeof url, "http://127.0.0.1:%d", loopback_port(0, fds));
        user_password = argv[8];
        verdicts += refusal(argv[2], url, argv[3], argv[4], argv[5], "count card used up",
                            VERIFY_EXPIRED, card_login, card_login, argv[6]);
        verdicts += refusal(argv[2], url, argv[3], argv[4], argv[5], "another machine",
                            VERIFY_MACHINE_CHANGED, user_login_a, user_login_b, argv[7]);
        verdicts += refusal(argv[2], url, argv[3], argv[4], argv[5], "wrong password",
                            VERIFY_WRONG_PASSWORD, user_login_a, user_login_wrong, argv[7]);
        printf("refusals=3 offline_verdicts=%d\n", verdicts);
        return 0;
    }
    if (strcmp(mode, "password") == 0 && argc == 9) {
        snprintf(url, sizeof url, "http://127.0.0.1:%d", loopback_port(0, fds));
        return password_cost(argv[2], url, argv + 3, atoi(argv[8]));
    }
    fprintf(stderr, "usage: see the comment at the top of benches/offline_start.c\n");
    return 2;
}
