/*
 * baseline.c: the same GetBulletin Handle call as benches/verify_bench.c, written the way a
 * C programmer would without the library: one libcurl easy handle (so the connection is
 * reused), OpenSSL's MD5 through EVP, a hand-written RC4, and a minimal look at the JSON
 * reply (`"code":200`). It sends exactly what libverify sends (docs/protocol.md, "Two steps",
 * docs/architecture.md, "Wire rules"): POST {base}/api/verify/{ApiPassword} with the `X-Api-Password` header
 * and the form `TimeStamp=..&Data=HEX(RC4(ApiPassword, "action=GetBulletin"))&Sign=md5(..)`.
 *
 *   baseline [--ca FILE] [--mirror URL] BASE_URL APP_ID APP_KEY MODE ARG...
 *
 * Modes: `latency N` (Init, 1,000 warm-up calls, N timed calls: median, p99, mean in ns),
 * `calls N` (Init then N calls, for callgrind), `rss N` (VmRSS after 1,000 and N calls),
 * `login CARD MAC` (the cold start: Init, one SingleLogin with `Card` and `Mac`, exit; run.sh
 * times the whole process; CARD and MAC must be made of `A-Z a-z 0-9 - _ . ~`, which the
 * plaintext sends as they are), `variable S N` (Init then N GetVariable calls with a name of
 * S letters `V`, at most 65,536: plaintext `action=GetVariable&Name=VV..`, for the per-byte
 * fit), `variables N` (Init then N GetVariable calls without a name: every variable, for the
 * per-variable fit). Every reply is checked the same minimal way (`"code":200`).
 * In `variable` mode an empty `Expect:` header is added: libcurl would otherwise send
 * `Expect: 100-continue` with a body over 1 KiB and wait for the server's `100 Continue`,
 * which libverify does not do (the empty header sends nothing: the requests stay the same).
 * `--ca FILE` trusts FILE (PEM) for https through CURLOPT_CAINFO, as a C programmer would
 * for a server signed by a private CA. `--mirror URL` is what a typical client does with a
 * second server: when Init at BASE_URL fails at the transport (DNS, connect, the 10 s
 * connect timeout, TLS), it runs Init at URL instead and stays there. In `login` mode the
 * program prints `login code=200 answer_unix_ns=N` (CLOCK_REALTIME when the SingleLogin
 * answer came back) for the network lab (tests/lab/, which subtracts the time it started
 * the process).
 *
 * Build (run.sh does it):
 *   cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic benches/baseline/baseline.c \
 *      $(pkg-config --cflags --libs libcurl libcrypto) -o baseline
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <openssl/evp.h>

#define WARMUP_CALLS 1000
#define PLAINTEXT "action=GetBulletin"
#define MAX_NAME 65536
#define MAX_PLAINTEXT (MAX_NAME + 256)

static CURL *g_curl;
static struct curl_slist *g_headers;
static EVP_MD_CTX *g_md_ctx;
static const EVP_MD *g_md5;
static char g_url[512];
static char g_api_password[257];
static char g_body[2 * MAX_PLAINTEXT + 256];
static unsigned char g_cipher[MAX_PLAINTEXT];
static char g_data[2 * MAX_PLAINTEXT + 1];

/* The reply body, reused from call to call. */
static char *g_reply;
static size_t g_reply_len, g_reply_cap;

static size_t on_body(char *data, size_t size, size_t count, void *user) {
    size_t n = size * count;
    (void)user;
    if (g_reply_len + n + 1 > g_reply_cap) {
        size_t cap = (g_reply_len + n + 1) * 2;
        char *grown = realloc(g_reply, cap);
        if (grown == NULL) {
            return 0;
        }
        g_reply = grown;
        g_reply_cap = cap;
    }
    memcpy(g_reply + g_reply_len, data, n);
    g_reply_len += n;
    g_reply[g_reply_len] = '\0';
    return n;
}

/* The usual ten lines of RC4, in place. */
static void rc4(const unsigned char *key, size_t key_len, unsigned char *data, size_t len) {
    unsigned char s[256], t;
    unsigned i, j = 0;
    size_t k;
    for (i = 0; i < 256; i++) s[i] = (unsigned char)i;
    for (i = 0; i < 256; i++) {
        j = (j + s[i] + key[i % key_len]) & 255;
        t = s[i]; s[i] = s[j]; s[j] = t;
    }
    for (k = 0, i = 0, j = 0; k < len; k++) {
        i = (i + 1) & 255;
        j = (j + s[i]) & 255;
        t = s[i]; s[i] = s[j]; s[j] = t;
        data[k] ^= s[(s[i] + s[j]) & 255];
    }
}

static void hex(const unsigned char *in, size_t len, char *out, const char *digits) {
    size_t i;
    for (i = 0; i < len; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * len] = '\0';
}

/* Lowercase hex MD5 of a + b + c (+ d). */
static void md5_hex(const char *a, const char *b, const char *c, const char *d, char out[33]) {
    unsigned char digest[16];
    unsigned int len = 0;
    EVP_DigestInit_ex(g_md_ctx, g_md5, NULL);
    EVP_DigestUpdate(g_md_ctx, a, strlen(a));
    EVP_DigestUpdate(g_md_ctx, b, strlen(b));
    EVP_DigestUpdate(g_md_ctx, c, strlen(c));
    if (d != NULL) {
        EVP_DigestUpdate(g_md_ctx, d, strlen(d));
    }
    EVP_DigestFinal_ex(g_md_ctx, digest, &len);
    hex(digest, 16, out, "0123456789abcdef");
}

/* One request; a transport failure ends the program unless `may_fail` (then it is returned). */
static CURLcode perform_or(const char *what, int may_fail) {
    CURLcode rc;
    long status = 0;
    g_reply_len = 0;
    rc = curl_easy_perform(g_curl);
    if (rc != CURLE_OK) {
        fprintf(stderr, "baseline: %s: %s\n", what, curl_easy_strerror(rc));
        if (may_fail) {
            return rc;
        }
        exit(1);
    }
    curl_easy_getinfo(g_curl, CURLINFO_RESPONSE_CODE, &status);
    /* Minimal JSON parse: the envelope's code. */
    if (g_reply == NULL || strstr(g_reply, "\"code\":200") == NULL) {
        fprintf(stderr, "baseline: %s: HTTP %ld, reply %s\n", what, status,
                g_reply ? g_reply : "(empty)");
        exit(1);
    }
    return CURLE_OK;
}

static void perform(const char *what) {
    perform_or(what, 0);
}

/* Init at `base`; a transport failure is returned when `may_fail`, else it ends the program. */
static CURLcode init_at(const char *base, const char *app_id, const char *app_key, int may_fail) {
    char timestamp[32], sign[33];
    snprintf(timestamp, sizeof timestamp, "%lld", (long long)time(NULL));
    md5_hex(app_id, app_key, timestamp, app_key, sign);
    snprintf(g_url, sizeof g_url, "%s/api/verify", base);
    snprintf(g_body, sizeof g_body, "AppId=%s&AppKey=%s&TimeStamp=%s&Sign=%s", app_id, app_key,
             timestamp, sign);
    curl_easy_setopt(g_curl, CURLOPT_URL, g_url);
    curl_easy_setopt(g_curl, CURLOPT_POSTFIELDS, g_body);
    return perform_or("Init", may_fail);
}

/* Init at `base`, or at `mirror` (when given) after a transport failure at `base`. */
static void init(const char *base, const char *mirror, const char *app_id, const char *app_key) {
    const char *field, *end;
    if (init_at(base, app_id, app_key, mirror != NULL) != CURLE_OK) {
        fprintf(stderr, "baseline: Init at %s failed; trying the mirror %s\n", base, mirror);
        init_at(mirror, app_id, app_key, 0);
        base = mirror;
    }
    field = strstr(g_reply, "\"api_password\":\"");
    if (field == NULL) {
        fprintf(stderr, "baseline: Init reply has no api_password: %s\n", g_reply);
        exit(1);
    }
    field += strlen("\"api_password\":\"");
    end = strchr(field, '"');
    if (end == NULL || end == field || (size_t)(end - field) >= sizeof g_api_password) {
        fprintf(stderr, "baseline: bad api_password in %s\n", g_reply);
        exit(1);
    }
    memcpy(g_api_password, field, (size_t)(end - field));
    g_api_password[end - field] = '\0';

    /* Handle: the same URL and header as libverify (the secret is [A-Za-z0-9]). */
    {
        char header[300];
        snprintf(g_url, sizeof g_url, "%s/api/verify/%s", base, g_api_password);
        snprintf(header, sizeof header, "X-Api-Password: %s", g_api_password);
        g_headers = curl_slist_append(NULL, header);
        curl_easy_setopt(g_curl, CURLOPT_URL, g_url);
        curl_easy_setopt(g_curl, CURLOPT_HTTPHEADER, g_headers);
    }
}

/* One Handle call with the given plaintext (at most MAX_PLAINTEXT bytes). */
static void handle(const char *plaintext, const char *what) {
    char timestamp[32], sign[33];
    size_t len = strlen(plaintext);
    if (len > MAX_PLAINTEXT) {
        fprintf(stderr, "baseline: plaintext too long\n");
        exit(1);
    }
    memcpy(g_cipher, plaintext, len);
    rc4((const unsigned char *)g_api_password, strlen(g_api_password), g_cipher, len);
    hex(g_cipher, len, g_data, "0123456789ABCDEF");
    snprintf(timestamp, sizeof timestamp, "%lld", (long long)time(NULL));
    md5_hex(g_api_password, timestamp, g_data, NULL, sign);
    snprintf(g_body, sizeof g_body, "TimeStamp=%s&Data=%s&Sign=%s", timestamp, g_data, sign);
    perform(what);
}

/* One Handle call: GetBulletin. */
static void one_call(void) {
    handle(PLAINTEXT, "GetBulletin");
}

/* Whether `text` is sent as it is by the plaintext encoding (RFC 3986 unreserved only). */
static int unreserved(const char *text) {
    for (; *text != '\0'; text++) {
        char c = *text;
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.' || c == '~')) {
            return 0;
        }
    }
    return 1;
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

int main(int argc, char **argv) {
    const char *mode, *ca_file = NULL, *mirror = NULL;
    long n = 0, i, name_bytes = 0;
    char *end = NULL;
    while (argc >= 3 && (strcmp(argv[1], "--ca") == 0 || strcmp(argv[1], "--mirror") == 0)) {
        if (strcmp(argv[1], "--ca") == 0) {
            ca_file = argv[2];
        } else {
            mirror = argv[2];
        }
        argc -= 2;
        argv += 2;
    }
    if (argc < 6) {
        fprintf(stderr, "usage: baseline [--ca FILE] [--mirror URL] BASE_URL APP_ID APP_KEY"
                        " latency|calls|rss N | login CARD MAC | variable S N | variables N\n");
        return 2;
    }
    mode = argv[4];
    if (strcmp(mode, "login") == 0) {
        if (argc < 7 || !unreserved(argv[5]) || !unreserved(argv[6]) ||
            strlen(argv[5]) + strlen(argv[6]) > MAX_PLAINTEXT - 40) {
            fprintf(stderr, "baseline: login CARD MAC: short, of A-Z a-z 0-9 - _ . ~ only\n");
            return 2;
        }
    } else if (strcmp(mode, "variable") == 0) {
        name_bytes = argc >= 7 ? strtol(argv[5], &end, 10) : 0;
        if (name_bytes <= 0 || name_bytes > MAX_NAME || *end != '\0') {
            fprintf(stderr, "baseline: variable S N: S from 1 to %d\n", MAX_NAME);
            return 2;
        }
        n = strtol(argv[6], &end, 10);
        if (end == argv[6] || *end != '\0' || n <= 0) {
            fprintf(stderr, "baseline: not a positive count: %s\n", argv[6]);
            return 2;
        }
    } else {
        n = strtol(argv[5], &end, 10);
        if (end == argv[5] || *end != '\0' || n <= 0) {
            fprintf(stderr, "baseline: not a positive count: %s\n", argv[5]);
            return 2;
        }
    }

    curl_global_init(CURL_GLOBAL_DEFAULT);
    g_curl = curl_easy_init();
    g_md_ctx = EVP_MD_CTX_new();
    g_md5 = EVP_md5();
    if (g_curl == NULL || g_md_ctx == NULL || g_md5 == NULL) {
        fprintf(stderr, "baseline: libcurl or OpenSSL initialisation failed\n");
        return 1;
    }
    curl_easy_setopt(g_curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(g_curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(g_curl, CURLOPT_TIMEOUT_MS, 30000L);
    if (ca_file != NULL) {
        curl_easy_setopt(g_curl, CURLOPT_CAINFO, ca_file);
    }
    init(argv[1], mirror, argv[2], argv[3]);

    if (strcmp(mode, "login") == 0) {
        /* The same plaintext as libverify: action first, then Card and Mac. */
        char plaintext[MAX_PLAINTEXT];
        snprintf(plaintext, sizeof plaintext, "action=SingleLogin&Card=%s&Mac=%s", argv[5],
                 argv[6]);
        handle(plaintext, "SingleLogin");
        {
            struct timespec answer;
            clock_gettime(CLOCK_REALTIME, &answer);
            printf("login code=200 answer_unix_ns=%lld\n",
                   (long long)answer.tv_sec * 1000000000LL + (long long)answer.tv_nsec);
        }
    } else if (strcmp(mode, "latency") == 0) {
        uint64_t *samples = malloc((size_t)n * sizeof *samples);
        uint64_t total = 0;
        size_t p99 = (size_t)((n * 99 + 99) / 100) - 1;
        if (samples == NULL) {
            return 1;
        }
        for (i = 0; i < WARMUP_CALLS; i++) {
            one_call();
        }
        for (i = 0; i < n; i++) {
            uint64_t start = now_ns();
            one_call();
            samples[i] = now_ns() - start;
            total += samples[i];
        }
        qsort(samples, (size_t)n, sizeof *samples, cmp_u64);
        printf("latency calls=%ld median_ns=%llu p99_ns=%llu mean_ns=%llu min_ns=%llu "
               "max_ns=%llu\n",
               n, (unsigned long long)samples[(n - 1) / 2], (unsigned long long)samples[p99],
               (unsigned long long)(total / (uint64_t)n), (unsigned long long)samples[0],
               (unsigned long long)samples[n - 1]);
        free(samples);
    } else if (strcmp(mode, "calls") == 0) {
        for (i = 0; i < n; i++) {
            one_call();
        }
        printf("calls calls=%ld ok\n", n);
    } else if (strcmp(mode, "variable") == 0) {
        /* The same plaintext as libverify: `V` is sent as it is. */
        static char plaintext[MAX_PLAINTEXT];
        size_t prefix = strlen("action=GetVariable&Name=");
        memcpy(plaintext, "action=GetVariable&Name=", prefix);
        memset(plaintext + prefix, 'V', (size_t)name_bytes);
        plaintext[prefix + (size_t)name_bytes] = '\0';
        g_headers = curl_slist_append(g_headers, "Expect:");
        curl_easy_setopt(g_curl, CURLOPT_HTTPHEADER, g_headers);
        for (i = 0; i < n; i++) {
            handle(plaintext, "GetVariable");
        }
        printf("variable name_bytes=%ld calls=%ld ok\n", name_bytes, n);
    } else if (strcmp(mode, "variables") == 0) {
        for (i = 0; i < n; i++) {
            handle("action=GetVariable", "GetVariable");
        }
        printf("variables calls=%ld ok\n", n);
    } else if (strcmp(mode, "rss") == 0) {
        long first = WARMUP_CALLS < n ? WARMUP_CALLS : n, rss_first;
        for (i = 0; i < first; i++) {
            one_call();
        }
        rss_first = vm_rss_kib();
        for (; i < n; i++) {
            one_call();
        }
        printf("rss calls_first=%ld rss_first_kib=%ld calls_last=%ld rss_last_kib=%ld\n", first,
               rss_first, n, vm_rss_kib());
    } else {
        fprintf(stderr, "baseline: unknown mode %s\n", mode);
        return 2;
    }

    curl_slist_free_all(g_headers);
    curl_easy_cleanup(g_curl);
    curl_global_cleanup();
    EVP_MD_CTX_free(g_md_ctx);
    free(g_reply);
    return 0;
}
