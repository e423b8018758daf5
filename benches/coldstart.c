/*
 * coldstart.c: times whole processes, for the cold-start rows of benches/run.sh.
 *
 *   coldstart RUNS WARMUP A_COMMAND [ARG...] --vs B_COMMAND [ARG...]
 *
 * Runs WARMUP pairs that are not counted, then RUNS pairs, A and B in turn (A B A B ...), so
 * that a drift of the machine's speed during the measurement touches both alike. Each run is
 * timed from just before fork() to just after wait4() returns (CLOCK_MONOTONIC): the
 * program's exec, dynamic loading, set-up, work and exit. Its CPU time (user + system) comes
 * from wait4's rusage. The commands run without a shell, with stdin and stdout on /dev/null
 * and stderr inherited; every run must exit 0, otherwise coldstart stops with status 1.
 *
 * Prints one line of `key=value` pairs (read by run.sh), times in ns:
 *   coldstart runs=N a_median_ns a_min_ns a_max_ns a_cpu_median_ns
 *                    b_median_ns b_min_ns b_max_ns b_cpu_median_ns ratio_median
 * where ratio_median is the median over the pairs of A's wall time / B's.
 *
 * Build (run.sh does it): cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic benches/coldstart.c
 */
#define _DEFAULT_SOURCE

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS 10000

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv) {
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* Runs argv once; returns its wall time and sets *cpu to its user + system time. */
static uint64_t run_once(char **argv, uint64_t *cpu) {
    struct rusage usage;
    int status = 0;
    uint64_t start = now_ns(), end;
    pid_t pid = fork();
    if (pid < 0) {
        perror("coldstart: fork");
        exit(1);
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            close(null);
        }
        execvp(argv[0], argv);
        perror("coldstart: exec");
        _exit(127);
    }
    if (wait4(pid, &status, 0, &usage) != pid) {
        perror("coldstart: wait4");
        exit(1);
    }
    end = now_ns();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "coldstart: %s failed (status %d)\n", argv[0], status);
        exit(1);
    }
    *cpu = tv_ns(usage.ru_utime) + tv_ns(usage.ru_stime);
    return end - start;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t median_u64(uint64_t *v, long n) {
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static long parse_count(const char *text, long min) {
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < min || value > MAX_RUNS) {
        fprintf(stderr, "coldstart: not a count in %ld..%d: %s\n", min, MAX_RUNS, text);
        exit(2);
    }
    return value;
}

int main(int argc, char **argv) {
    static uint64_t a_wall[MAX_RUNS], b_wall[MAX_RUNS], a_cpu[MAX_RUNS], b_cpu[MAX_RUNS];
    static double ratio[MAX_RUNS];
    char **a, **b = NULL;
    long runs, warmup, i;
    uint64_t a_min, a_max, b_min, b_max, cpu;
    int k;
    if (argc < 6) {
        fprintf(stderr, "usage: coldstart RUNS WARMUP A_COMMAND [ARG...] --vs B_COMMAND [ARG...]\n");
        return 2;
    }
    runs = parse_count(argv[1], 1);
    warmup = parse_count(argv[2], 0);
    a = argv + 3;
    for (k = 3; k < argc; k++) {
        if (strcmp(argv[k], "--vs") == 0) {
            argv[k] = NULL; /* ends A's argv */
            b = argv + k + 1;
            break;
        }
    }
    if (b == NULL || b[0] == NULL || a[0] == NULL) {
        fprintf(stderr, "coldstart: need A_COMMAND --vs B_COMMAND\n");
        return 2;
    }
    for (i = 0; i < warmup; i++) {
        run_once(a, &cpu);
        run_once(b, &cpu);
    }
    for (i = 0; i < runs; i++) {
        a_wall[i] = run_once(a, &a_cpu[i]);
        b_wall[i] = run_once(b, &b_cpu[i]);
        ratio[i] = (double)a_wall[i] / (double)b_wall[i];
    }
    qsort(ratio, (size_t)runs, sizeof *ratio, cmp_double);
    {
        double ratio_median =
            runs % 2 ? ratio[runs / 2] : (ratio[runs / 2 - 1] + ratio[runs / 2]) / 2;
        uint64_t a_med = median_u64(a_wall, runs), b_med = median_u64(b_wall, runs);
        a_min = a_wall[0];
        a_max = a_wall[runs - 1];
        b_min = b_wall[0];
        b_max = b_wall[runs - 1];
        printf("coldstart runs=%ld a_median_ns=%llu a_min_ns=%llu a_max_ns=%llu "
               "a_cpu_median_ns=%llu b_median_ns=%llu b_min_ns=%llu b_max_ns=%llu "
               "b_cpu_median_ns=%llu ratio_median=%.3f\n",
               runs, (unsigned long long)a_med, (unsigned long long)a_min,
               (unsigned long long)a_max, (unsigned long long)median_u64(a_cpu, runs),
               (unsigned long long)b_med, (unsigned long long)b_min, (unsigned long long)b_max,
               (unsigned long long)median_u64(b_cpu, runs), ratio_median);
    }
    return 0;
}
