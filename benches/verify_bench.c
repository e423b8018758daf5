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
 *
 * Every call must answer 200; otherwise the program stops with status 1.
 *
 * Build (run.sh does it):
 *   cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -I include benches/verify_bench.c \
 *      -L target/release -lverify -lpthread -Wl,-rpath,"$PWD/target/release" -o verify_bench
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static void usage(void) {
    fprintf(stderr,
            "usage: verify_bench [--ca FILE] BASE_URL APP_ID APP_KEY latency N"
            " | throughput THREADS SECONDS | rss N | calls N | login CARD MAC\n");
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
    usage();
    return 2;
}
