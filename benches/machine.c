/*
 * machine.c: the cost of the machine code, v1 and v2 (benches/machine.sh runs it).
 *
 *   machine FOLDER N   prints "v1_first_ns=A v1_warm_ns=B v2_first_ns=C v2_warm_ns=D": the
 *                      first call of each in this process (cold), and the median of N more
 *                      (warm); v2 keeps its code in FOLDER.
 */

#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "verify.h"

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* One call of version v: its time in ns, or -1 on failure. */
static long long one(int version, const char *folder)
{
    char code[VERIFY_MACHINE_CODE_LEN + 1];
    long long start = now_ns();
    int32_t rc = version == 1 ? verify_machine_code("bench", code, sizeof code)
                              : verify_machine_code_ex("bench", VERIFY_MACHINE_V2, folder, code,
                                                       sizeof code);
    long long took = now_ns() - start;
    return rc == VERIFY_OK ? took : -1;
}

int main(int argc, char **argv)
{
    long long first[3], warm[3], *times;
    int n, i, version;
    if (argc != 3 || (n = atoi(argv[2])) < 1) {
        fprintf(stderr, "usage: %s FOLDER N\n", argv[0]);
        return 2;
    }
    times = malloc(sizeof *times * (size_t)n);
    if (times == NULL) {
        return 1;
    }
    for (version = 1; version <= 2; version++) {
        first[version] = one(version, argv[1]);
        for (i = 0; i < n; i++) {
            times[i] = one(version, argv[1]);
            if (times[i] < 0 || first[version] < 0) {
                fprintf(stderr, "machine v%d failed: %s\n", version, verify_last_error_message());
                free(times);
                return 1;
            }
        }
        qsort(times, (size_t)n, sizeof *times, by_value);
        warm[version] = times[n / 2];
    }
    printf("v1_first_ns=%lld v1_warm_ns=%lld v2_first_ns=%lld v2_warm_ns=%lld\n", first[1], warm[1],
           first[2], warm[2]);
    free(times);
    return 0;
}
