/*
 * verify_bench.c: the C host of the benchmark (benches/run.sh). It links libverify and makes
 * `GetBulletin` Handle calls (verify_get_bulletin) against a sandbox, through the C ABI.
 *
 *   verify_bench [--ca FILE] BASE_URL APP_ID APP_KEY MODE ARG...
 *
 * `--ca FILE` trusts the PEM certificates of FILE as roots, in addition to the default trust
 * (verify_client_options_add_root_file, then verify_client_new_with_options): how an
 * https base URL signed by a private CA (the sandbox's generated one) is reached. Without it
 * the client is made with verify_client_new.
 *
 * Modes (every line printed is `key=value` pairs, read by run.sh):
 *   latency N              one thread, one client: Init, 1,000 warm-up calls, then N timed
 *                          calls (CLOCK_MONOTONIC around each); prints median, p99, mean in ns
 *   throughput T SECONDS   T pthreads share one client and call for SECONDS; prints calls/s
 *   rss N                  one client: prints VmRSS (KiB) after 1,000 calls and after N calls
 *   calls N                Init, then N calls, nothing timed (for callgrind and for counting
 *                          TCP connections)
 *   login CARD MAC         the cold start: make a client, Init, one SingleLogin (CARD bound to
 *                          MAC), free the client, exit; run.sh times the whole process
 *   variable S N           Init, then N calls of verify_get_variable with a name of S letters
 *                          `V` (the program must hold that variable; run.sh adds it), for the
 *                          per-byte fit under callgrind
 *   variables N            Init, then N calls of verify_get_variables (every variable of the
 *                          program), for the per-variable fit under callgrind
 *   keeper CARD MAC H MS   Init, SingleLogin, then a keeper (interval MS, with a callback) on
 *                          the same client; after each of its first H heartbeats (status
 *                          polled every 5 ms) one host call (GetBulletin) on the client. Marks
 *                          the span of the H heartbeats with two getppid() calls (for
 *                          `strace -f -e trace=clone,clone3,getppid`, which counts the threads
 *                          created between them) and prints the threads alive before and after
 *   keeper-idle CARD MAC H MS
 *                          Init, SingleLogin, a keeper (interval MS, with a callback); after
 *                          each of its first H heartbeats, once its threads are asleep, the
 *                          context switches (voluntary + nonvoluntary) of the threads named
 *                          verify-keeper* are read, and again 250 ms before the next heartbeat
 *                          can be due: prints the switches in those idle windows (no host
 *                          calls, nothing polled inside a window), and, to show that the
 *                          count moves, those from the end of one window over the next
 *                          heartbeat to the start of the next window
 *
 * Every call must answer 200 (every heartbeat must succeed); otherwise the program stops with
 * status 1.
 *
 * Build (run.sh does it):
 *   cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -I include benches/verify_bench.c \
 *      -L target/release -lverify -lpthread -Wl,-rpath,"$PWD/target/release" -o verify_bench
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "verify.h"

#define WARMUP_CALLS 1000

static const char *g_url;
static const char *g_app_id;
static const char *g_app_key;
static const char *g_ca_file; /* --ca FILE, or NULL */

static void die(const char *what, int32_t code) {
    fprintf(stderr, "verify_bench: %s failed: %d %s: %s\n", what, (int)code,
            verify_code_describe(code), verify_last_error_message());
    exit(1);
}

static verify_client *new_client(void) {
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    int32_t code;
    if (g_ca_file == NULL) {
        code = verify_client_new(g_url, g_app_id, g_app_key, &client);
        if (code != VERIFY_OK) {
            die("verify_client_new", code);
        }
    } else {
        verify_client_options *options = NULL;
        code = verify_client_options_new(&options);
        if (code != VERIFY_OK) {
            die("verify_client_options_new", code);
        }
        code = verify_client_options_add_root_file(options, g_ca_file);
        if (code != VERIFY_OK) {
            die("verify_client_options_add_root_file", code);
        }
        code = verify_client_new_with_options(g_url, g_app_id, g_app_key, options, &client);
        verify_client_options_free(options);
        if (code != VERIFY_OK) {
            die("verify_client_new_with_options", code);
        }
    }
    code = verify_init(client, &reply);
    verify_reply_free(reply);
    if (code != VERIFY_OK) {
        die("verify_init", code);
    }
    return client;
}

/* One Handle call: GetBulletin, its reply read and freed. */
static void one_call(verify_client *client) {
    verify_reply *reply = NULL;
    int32_t code = verify_get_bulletin(client, &reply);
    if (code != VERIFY_OK || reply == NULL) {
        verify_reply_free(reply);
        die("verify_get_bulletin", code);
    }
    verify_reply_free(reply);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static long parse_count(const char *text) {
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || value <= 0) {
        fprintf(stderr, "verify_bench: not a positive count: %s\n", text);
        exit(2);
    }
    return value;
}

static int mode_latency(long n) {
    verify_client *client = new_client();
    uint64_t *samples = malloc((size_t)n * sizeof *samples);
    uint64_t total = 0;
    long i;
    if (samples == NULL) {
        fprintf(stderr, "verify_bench: out of memory\n");
        return 1;
    }
    for (i = 0; i < WARMUP_CALLS; i++) {
        one_call(client);
    }
    for (i = 0; i < n; i++) {
        uint64_t start = now_ns();
        one_call(client);
        samples[i] = now_ns() - start;
        total += samples[i];
    }
    qsort(samples, (size_t)n, sizeof *samples, cmp_u64);
    {
        size_t p99 = (size_t)((n * 99 + 99) / 100) - 1; /* ceil(0.99 n) - 1 */
        printf("latency calls=%ld median_ns=%llu p99_ns=%llu mean_ns=%llu min_ns=%llu "
               "max_ns=%llu\n",
               n, (unsigned long long)samples[(n - 1) / 2], (unsigned long long)samples[p99],
               (unsigned long long)(total / (uint64_t)n), (unsigned long long)samples[0],
               (unsigned long long)samples[n - 1]);
    }
    free(samples);
    verify_client_free(client);
    return 0;
}

struct worker {
    pthread_t thread;
    verify_client *client;
    uint64_t deadline_ns;
    long calls;
};

static void *worker_main(void *arg) {
    struct worker *w = arg;
    long calls = 0;
    while (now_ns() < w->deadline_ns) {
        one_call(w->client);
        calls++;
    }
    w->calls = calls;
    return NULL;
}

static int mode_throughput(long threads, double seconds) {
    verify_client *client = new_client();
    struct worker *workers = calloc((size_t)threads, sizeof *workers);
    uint64_t start, end;
    long i, total = 0;
    if (workers == NULL) {
        fprintf(stderr, "verify_bench: out of memory\n");
        return 1;
    }
    for (i = 0; i < WARMUP_CALLS / 10; i++) {
        one_call(client);
    }
    start = now_ns();
    for (i = 0; i < threads; i++) {
        workers[i].client = client;
        workers[i].deadline_ns = start + (uint64_t)(seconds * 1e9);
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0) {
            fprintf(stderr, "verify_bench: pthread_create failed\n");
            return 1;
        }
    }
    for (i = 0; i < threads; i++) {
        pthread_join(workers[i].thread, NULL);
        total += workers[i].calls;
    }
    end = now_ns();
    printf("throughput threads=%ld calls=%ld seconds=%.3f calls_per_sec=%.0f\n", threads, total,
           (double)(end - start) / 1e9, (double)total / ((double)(end - start) / 1e9));
    free(workers);
    verify_client_free(client);
    return 0;
}

/* VmRSS of this process in KiB, from /proc/self/status. */
static long vm_rss_kib(void) {
    char line[256];
    long kib = -1;
    FILE *status = fopen("/proc/self/status", "r");
    if (status == NULL) {
        return -1;
    }
    while (fgets(line, sizeof line, status) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kib = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(status);
    return kib;
}

static int mode_rss(long n) {
    verify_client *client = new_client();
    long i, first = WARMUP_CALLS < n ? WARMUP_CALLS : n;
    long rss_first, rss_last;
    for (i = 0; i < first; i++) {
        one_call(client);
    }
    rss_first = vm_rss_kib();
    for (; i < n; i++) {
        one_call(client);
    }
    rss_last = vm_rss_kib();
    printf("rss calls_first=%ld rss_first_kib=%ld calls_last=%ld rss_last_kib=%ld\n", first,
           rss_first, n, rss_last);
    verify_client_free(client);
    return 0;
}

static int mode_calls(long n) {
    verify_client *client = new_client();
    long i;
    for (i = 0; i < n; i++) {
        one_call(client);
    }
    printf("calls calls=%ld ok\n", n);
    verify_client_free(client);
    return 0;
}

/* The cold start: everything a program does to log in once, then exit. */
static int mode_login(const char *card, const char *mac) {
    verify_client *client = new_client();
    verify_reply *reply = NULL;
    int32_t code = verify_single_login(client, card, mac, NULL, &reply);
    verify_reply_free(reply);
    if (code != VERIFY_OK) {
        die("verify_single_login", code);
    }
    verify_client_free(client);
    return 0;
}

/* ---- GetVariable: per request byte and per variable ------------------------------------ */

/* A variable name of `size` letters `V` (sent as it is: `V` is unreserved). */
static char *make_name(long size) {
    char *name = malloc((size_t)size + 1);
    if (name == NULL) {
        fprintf(stderr, "verify_bench: out of memory\n");
        exit(1);
    }
    memset(name, 'V', (size_t)size);
    name[size] = '\0';
    return name;
}

static int mode_variable(long size, long n) {
    verify_client *client = new_client();
    char *name = make_name(size);
    long i;
    for (i = 0; i < n; i++) {
        verify_reply *reply = NULL;
        int32_t code = verify_get_variable(client, name, &reply);
        verify_reply_free(reply);
        if (code != VERIFY_OK) {
            die("verify_get_variable", code);
        }
    }
    printf("variable name_bytes=%ld calls=%ld ok\n", size, n);
    free(name);
    verify_client_free(client);
    return 0;
}

static int mode_variables(long n) {
    verify_client *client = new_client();
    long i;
    for (i = 0; i < n; i++) {
        verify_reply *reply = NULL;
        int32_t code = verify_get_variables(client, &reply);
        verify_reply_free(reply);
        if (code != VERIFY_OK) {
            die("verify_get_variables", code);
        }
    }
    printf("variables calls=%ld ok\n", n);
    verify_client_free(client);
    return 0;
}

/* ---- the session keeper --------------------------------------------------------------- */

static pthread_mutex_t g_events_lock = PTHREAD_MUTEX_INITIALIZER;
static long g_events_alive; /* VERIFY_EVENT_ALIVE events seen by the callback */

static void VERIFY_CALL on_event(void *user_data, const verify_event *event) {
    (void)user_data;
    if (event->kind == VERIFY_EVENT_ALIVE) {
        pthread_mutex_lock(&g_events_lock);
        g_events_alive++;
        pthread_mutex_unlock(&g_events_lock);
    }
}

static long events_alive(void) {
    long n;
    pthread_mutex_lock(&g_events_lock);
    n = g_events_alive;
    pthread_mutex_unlock(&g_events_lock);
    return n;
}

static void sleep_ns(uint64_t ns) {
    struct timespec ts;
    ts.tv_sec = (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Heartbeats done so far (succeeded + failed); stops the program on a failed one. */
static uint64_t beats_done(const verify_keeper *keeper) {
    verify_keeper_status *status = NULL;
    uint64_t ok = 0, failed = 0;
    int32_t code = verify_keeper_get_status(keeper, &status);
    if (code != VERIFY_OK) {
        die("verify_keeper_get_status", code);
    }
    verify_keeper_status_counts(status, &ok, &failed);
    if (failed != 0) {
        const char *message = "";
        int32_t last = 0;
        verify_keeper_status_last_code(status, &last);
        verify_keeper_status_last_message(status, &message);
        fprintf(stderr, "verify_bench: a heartbeat failed: %d %s\n", (int)last, message);
        exit(1);
    }
    verify_keeper_status_free(status);
    return ok;
}

/* Polls the keeper every 5 ms until `beats` heartbeats are done (a deadline of two intervals
 * and 10 s); returns when it saw it (CLOCK_MONOTONIC ns). */
static uint64_t wait_beats(const verify_keeper *keeper, uint64_t beats, long interval_ms) {
    uint64_t deadline = now_ns() + (uint64_t)(2 * interval_ms + 10000) * 1000000u;
    while (beats_done(keeper) < beats) {
        if (now_ns() > deadline) {
            fprintf(stderr, "verify_bench: heartbeat %llu did not come in time\n",
                    (unsigned long long)beats);
            exit(1);
        }
        sleep_ns(5000000u);
    }
    return now_ns();
}

/* Logs in with CARD and MAC and starts a keeper with the given interval and a callback. */
static verify_keeper *start_keeper(verify_client *client, const char *card, const char *mac,
                                   long interval_ms) {
    verify_reply *reply = NULL;
    verify_keeper_options *options = NULL;
    verify_keeper *keeper = NULL;
    const char *token = NULL;
    int32_t code = verify_single_login(client, card, mac, NULL, &reply);
    if (code != VERIFY_OK) {
        verify_reply_free(reply);
        die("verify_single_login", code);
    }
    if (verify_reply_str(reply, "/data/token", &token) != 0) {
        fprintf(stderr, "verify_bench: the login reply has no token\n");
        exit(1);
    }
    code = verify_keeper_options_new(&options);
    if (code != VERIFY_OK) {
        die("verify_keeper_options_new", code);
    }
    code = verify_keeper_options_set_interval(options, (uint32_t)interval_ms);
    if (code != VERIFY_OK) {
        die("verify_keeper_options_set_interval", code);
    }
    code = verify_keeper_options_set_callback(options, on_event, NULL);
    if (code != VERIFY_OK) {
        die("verify_keeper_options_set_callback", code);
    }
    code = verify_keeper_start(client, token, VERIFY_SESSION_CARD, options, &keeper);
    verify_keeper_options_free(options);
    verify_reply_free(reply);
    if (code != VERIFY_OK) {
        die("verify_keeper_start", code);
    }
    return keeper;
}

/* How many threads this process has now (/proc/self/task). */
static long task_count(void) {
    DIR *dir = opendir("/proc/self/task");
    struct dirent *entry;
    long count = 0;
    if (dir == NULL) {
        return -1;
    }
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9') {
            count++;
        }
    }
    closedir(dir);
    return count;
}

/* Context switches (voluntary + nonvoluntary) of the threads whose name starts with
 * `verify-keeper` (the heartbeat thread and the event thread); `*threads` how many,
 * `*asleep` how many of them are in state S. */
static long keeper_switches(int *threads, int *asleep) {
    DIR *dir = opendir("/proc/self/task");
    struct dirent *entry;
    long total = 0;
    *threads = 0;
    *asleep = 0;
    if (dir == NULL) {
        return -1;
    }
    while ((entry = readdir(dir)) != NULL) {
        char path[300], line[256];
        FILE *file;
        int keeper = 0;
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') {
            continue;
        }
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", entry->d_name);
        file = fopen(path, "r");
        if (file == NULL) {
            continue;
        }
        if (fgets(line, sizeof line, file) != NULL && strncmp(line, "verify-keeper", 13) == 0) {
            keeper = 1;
        }
        fclose(file);
        if (!keeper) {
            continue;
        }
        snprintf(path, sizeof path, "/proc/self/task/%s/status", entry->d_name);
        file = fopen(path, "r");
        if (file == NULL) {
            continue;
        }
        (*threads)++;
        while (fgets(line, sizeof line, file) != NULL) {
            if (strncmp(line, "State:", 6) == 0 && strstr(line, "(sleeping)") != NULL) {
                (*asleep)++;
            } else if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0) {
                total += strtol(line + 24, NULL, 10);
            } else if (strncmp(line, "nonvoluntary_ctxt_switches:", 27) == 0) {
                total += strtol(line + 27, NULL, 10);
            }
        }
        fclose(file);
    }
    closedir(dir);
    return total;
}

static int mode_keeper(const char *card, const char *mac, long beats, long interval_ms) {
    verify_client *client = new_client();
    verify_keeper *keeper = start_keeper(client, card, mac, interval_ms);
    long tasks_start = task_count(), tasks_end, b;
    uint64_t start, end;
    (void)getppid(); /* marker for strace: the heartbeats start */
    start = now_ns();
    for (b = 1; b <= beats; b++) {
        wait_beats(keeper, (uint64_t)b, interval_ms);
        one_call(client); /* a host call between heartbeats, on the same client */
    }
    end = now_ns();
    (void)getppid(); /* marker for strace: the heartbeats end */
    tasks_end = task_count();
    printf("keeper beats=%ld interval_ms=%ld host_calls=%ld seconds=%.3f threads_start=%ld "
           "threads_end=%ld alive_events=%ld\n",
           beats, interval_ms, beats, (double)(end - start) / 1e9, tasks_start, tasks_end,
           events_alive());
    verify_keeper_free(keeper);
    verify_client_free(client);
    return 0;
}

static int mode_keeper_idle(const char *card, const char *mac, long beats, long interval_ms) {
    verify_client *client = new_client();
    verify_keeper *keeper = start_keeper(client, card, mac, interval_ms);
    const uint64_t margin_ns = 250000000u; /* the window ends 250 ms before the next beat */
    long b, wakeups = 0, worst = 0, busy = 0, last = -1;
    uint64_t window_ns = 0;
    int threads = 0, asleep = 0;
    for (b = 1; b <= beats; b++) {
        uint64_t seen = wait_beats(keeper, (uint64_t)b, interval_ms), t1, t2;
        uint64_t settle_deadline = seen + (uint64_t)interval_ms * 1000000u / 2;
        long s1, s2, prev = -1;
        /* The callback has had the heartbeat's event, and both threads sleep with the same
         * switch count over two looks 10 ms apart: the beat is over. */
        for (;;) {
            s1 = keeper_switches(&threads, &asleep);
            if (events_alive() >= b && threads >= 1 && asleep == threads && s1 == prev) {
                break;
            }
            if (now_ns() > settle_deadline) {
                fprintf(stderr, "verify_bench: the keeper threads did not settle after beat %ld\n",
                        b);
                exit(1);
            }
            prev = s1;
            sleep_ns(10000000u);
        }
        t1 = now_ns();
        if (last >= 0) {
            busy += s1 - last; /* from the end of the previous window, over this beat */
        }
        /* The next heartbeat is due no sooner than one interval after it was seen done. */
        if (seen + (uint64_t)interval_ms * 1000000u < t1 + margin_ns + 100000000u) {
            fprintf(stderr, "verify_bench: no idle window left after beat %ld\n", b);
            exit(1);
        }
        sleep_ns(seen + (uint64_t)interval_ms * 1000000u - margin_ns - t1);
        s2 = keeper_switches(&threads, &asleep);
        t2 = now_ns();
        last = s2;
        window_ns += t2 - t1;
        wakeups += s2 - s1;
        if (s2 - s1 > worst) {
            worst = s2 - s1;
        }
    }
    printf("keeper_idle beats=%ld interval_ms=%ld keeper_threads=%d windows=%ld "
           "window_ms_total=%.0f switches=%ld switches_max=%ld switches_over_beats=%ld\n",
           beats, interval_ms, threads, beats, (double)window_ns / 1e6, wakeups, worst, busy);
    verify_keeper_free(keeper);
    verify_client_free(client);
    return 0;
}

static void usage(void) {
    fprintf(stderr,
            "usage: verify_bench [--ca FILE] BASE_URL APP_ID APP_KEY latency N"
            " | throughput THREADS SECONDS | rss N | calls N | login CARD MAC"
            " | variable S N | variables N | keeper CARD MAC H MS | keeper-idle CARD MAC H MS\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *mode;
    if (argc >= 3 && strcmp(argv[1], "--ca") == 0) {
        g_ca_file = argv[2];
        argc -= 2;
        argv += 2;
    }
    if (argc < 6) {
        usage();
    }
    g_url = argv[1];
    g_app_id = argv[2];
    g_app_key = argv[3];
    mode = argv[4];
    if (strcmp(mode, "latency") == 0) {
        return mode_latency(parse_count(argv[5]));
    }
    if (strcmp(mode, "throughput") == 0 && argc >= 7) {
        double seconds = strtod(argv[6], NULL);
        if (!(seconds > 0)) {
            usage();
        }
        return mode_throughput(parse_count(argv[5]), seconds);
    }
    if (strcmp(mode, "rss") == 0) {
        return mode_rss(parse_count(argv[5]));
    }
    if (strcmp(mode, "calls") == 0) {
        return mode_calls(parse_count(argv[5]));
    }
    if (strcmp(mode, "login") == 0 && argc >= 7) {
        return mode_login(argv[5], argv[6]);
    }
    if (strcmp(mode, "variable") == 0 && argc >= 7) {
        return mode_variable(parse_count(argv[5]), parse_count(argv[6]));
    }
    if (strcmp(mode, "variables") == 0) {
        return mode_variables(parse_count(argv[5]));
    }
    if (strcmp(mode, "keeper") == 0 && argc >= 9) {
        return mode_keeper(argv[5], argv[6], parse_count(argv[7]), parse_count(argv[8]));
    }
    if (strcmp(mode, "keeper-idle") == 0 && argc >= 9) {
        return mode_keeper_idle(argv[5], argv[6], parse_count(argv[7]), parse_count(argv[8]));
    }
    usage();
    return 2;
}
