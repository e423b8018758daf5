/*
 * floor.c: the floor of the benchmark (benches/run.sh): the least a client of the service can
 * do for a call over plain http on loopback. One TCP socket kept alive, the request written
 * with one write() from a buffer, the reply read into a buffer, the head looked at only for
 * Content-Length, the body only for `"code":200`; MD5, RC4 and hex written here, no library
 * but libc. No timeouts, no retries, no TLS, no proxy, no error text: nothing a real client
 * can leave out, which is why it is a floor and not a competitor.
 *
 * It sends the same requests as libverify and benches/baseline/baseline.c: Init
 * (`AppId=..&AppKey=..&TimeStamp=..&Sign=md5(AppId+AppKey+TimeStamp+AppKey)` to
 * /api/verify), then Handle calls (`POST /api/verify/{ApiPassword}` with `X-Api-Password`
 * and `TimeStamp=..&Data=HEX(RC4(ApiPassword, plaintext))&Sign=md5(ApiPassword+TimeStamp+Data)`).
 *
 *   floor http://127.0.0.1:PORT APP_ID APP_KEY MODE ARG...
 *
 * Modes, as in the other two programs: `latency N` (Init, 1,000 warm-up calls, N timed
 * GetBulletin calls: median, p99, mean in ns), `calls N` (Init then N calls, for callgrind),
 * `login CARD MAC` (the cold start: Init, one SingleLogin, exit), `variable S N` (Init then N
 * GetVariable calls with a name of S letters `V`, at most 65,536), `variables N` (Init then N
 * GetVariable calls without a name: every variable). CARD and MAC must be made of
 * `A-Z a-z 0-9 - _ . ~`. Only http://IPv4:PORT base URLs.
 *
 * Build (run.sh does it): cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic benches/floor/floor.c
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WARMUP_CALLS 1000
#define MAX_NAME 65536
#define MAX_PLAINTEXT (MAX_NAME + 256)

static int g_fd = -1;
static char g_host[64];             /* "127.0.0.1:PORT", the Host header */
static char g_handle_path[320];     /* "/api/verify/{ApiPassword}" */
static char g_api_password[257];
static char g_header[300];          /* "X-Api-Password: {ApiPassword}\r\n" */
static char g_req[2 * MAX_PLAINTEXT + 1024];
static char g_reply[262144];
static unsigned char g_cipher[MAX_PLAINTEXT];
static char g_data[2 * MAX_PLAINTEXT + 1];
static char g_form[2 * MAX_PLAINTEXT + 256];
static size_t g_reply_len;          /* bytes in g_reply */
static const char *g_body;          /* the last reply's body, NUL-terminated in g_reply */

static void fail(const char *what) {
    fprintf(stderr, "floor: %s\n", what);
    exit(1);
}

/* ---- MD5 (RFC 1321) ---------------------------------------------------------------- */

struct md5 {
    uint32_t h[4];
    uint64_t len;
    unsigned char buf[64];
    size_t used;
};

static uint32_t rol(uint32_t x, int c) {
    return (x << c) | (x >> (32 - c));
}

static void md5_block(uint32_t h[4], const unsigned char *p) {
    static const uint32_t k[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
        0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
        0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
        0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
        0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
        0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
        0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
        0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
        0xeb86d391};
    static const int r[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                              5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                              4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                              6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
    uint32_t w[16], a = h[0], b = h[1], c = h[2], d = h[3];
    int i;
    for (i = 0; i < 16; i++) {
        w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
               (uint32_t)p[4 * i + 3] << 24;
    }
    for (i = 0; i < 64; i++) {
        uint32_t f, t;
        int g;
        if (i < 16) {
            f = (b & c) | (~b & d);
            g = i;
        } else if (i < 32) {
            f = (d & b) | (~d & c);
            g = (5 * i + 1) & 15;
        } else if (i < 48) {
            f = b ^ c ^ d;
            g = (3 * i + 5) & 15;
        } else {
            f = c ^ (b | ~d);
            g = (7 * i) & 15;
        }
        t = d;
        d = c;
        c = b;
        b = b + rol(a + f + k[i] + w[g], r[i]);
        a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
}

static void md5_init(struct md5 *m) {
    m->h[0] = 0x67452301;
    m->h[1] = 0xefcdab89;
    m->h[2] = 0x98badcfe;
    m->h[3] = 0x10325476;
    m->len = 0;
    m->used = 0;
}

static void md5_update(struct md5 *m, const char *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    m->len += n;
    while (n > 0) {
        size_t take = 64 - m->used < n ? 64 - m->used : n;
        memcpy(m->buf + m->used, p, take);
        m->used += take;
        p += take;
        n -= take;
        if (m->used == 64) {
            md5_block(m->h, m->buf);
            m->used = 0;
        }
    }
}

static void md5_final(struct md5 *m, unsigned char out[16]) {
    uint64_t bits = m->len * 8;
    int i;
    m->buf[m->used++] = 0x80;
    if (m->used > 56) {
        memset(m->buf + m->used, 0, 64 - m->used);
        md5_block(m->h, m->buf);
        m->used = 0;
    }
    memset(m->buf + m->used, 0, 56 - m->used);
    for (i = 0; i < 8; i++) {
        m->buf[56 + i] = (unsigned char)(bits >> (8 * i));
    }
    md5_block(m->h, m->buf);
    for (i = 0; i < 4; i++) {
        out[4 * i] = (unsigned char)m->h[i];
        out[4 * i + 1] = (unsigned char)(m->h[i] >> 8);
        out[4 * i + 2] = (unsigned char)(m->h[i] >> 16);
        out[4 * i + 3] = (unsigned char)(m->h[i] >> 24);
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
    struct md5 m;
    unsigned char digest[16];
    md5_init(&m);
    md5_update(&m, a, strlen(a));
    md5_update(&m, b, strlen(b));
    md5_update(&m, c, strlen(c));
    if (d != NULL) {
        md5_update(&m, d, strlen(d));
    }
    md5_final(&m, digest);
    hex(digest, 16, out, "0123456789abcdef");
}

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

/* ---- HTTP/1.1 on one kept-alive socket ---------------------------------------------- */

static void connect_to(const char *base) {
    char ip[32];
    const char *colon;
    struct sockaddr_in addr;
    int port, one = 1;
    if (strncmp(base, "http://", 7) != 0) {
        fail("only http://IPv4:PORT base URLs");
    }
    base += 7;
    colon = strchr(base, ':');
    if (colon == NULL || (size_t)(colon - base) >= sizeof ip || strlen(base) >= sizeof g_host) {
        fail("only http://IPv4:PORT base URLs");
    }
    memcpy(ip, base, (size_t)(colon - base));
    ip[colon - base] = '\0';
    port = atoi(colon + 1);
    strcpy(g_host, base);
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, ip, &addr.sin_addr) != 1) {
        fail("only http://IPv4:PORT base URLs");
    }
    g_fd = socket(AF_INET, SOCK_STREAM, 0);
    if (g_fd < 0 || connect(g_fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        fail("connect failed");
    }
    setsockopt(g_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* strncasecmp for ASCII (not in C99). */
static int strncasecmp_ascii(const char *a, const char *b, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        int x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x >= 'A' && x <= 'Z') x += 'a' - 'A';
        if (y >= 'A' && y <= 'Z') y += 'a' - 'A';
        if (x != y || x == 0) {
            return x - y;
        }
    }
    return 0;
}

/* Content-Length of a reply head (case-insensitive name), or -1. */
static long content_length(const char *head, const char *end) {
    const char *p = head;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL) {
            break;
        }
        if (eol - p > 15 && strncasecmp_ascii(p, "content-length:", 15) == 0) {
            return strtol(p + 15, NULL, 10);
        }
        p = eol + 1;
    }
    return -1;
}

/* Appends text to the request being built in g_req. */
static char *put(char *at, const char *text, size_t len) {
    if ((size_t)(at - g_req) + len >= sizeof g_req) {
        fail("request too long");
    }
    memcpy(at, text, len);
    return at + len;
}
#define PUT(at, literal) put((at), (literal), sizeof(literal) - 1)

/* POST `path` with the form `body` and `extra` headers; reads the reply; checks code 200. */
static void post(const char *path, const char *extra, const char *body, const char *what) {
    size_t body_len = strlen(body), off = 0, head_len = 0, n;
    char digits[24], *at = g_req;
    int d = (int)sizeof digits;
    long clen = -1;
    size_t v = body_len;
    do {
        digits[--d] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    at = PUT(at, "POST ");
    at = put(at, path, strlen(path));
    at = PUT(at, " HTTP/1.1\r\nHost: ");
    at = put(at, g_host, strlen(g_host));
    at = PUT(at, "\r\n");
    at = put(at, extra, strlen(extra));
    at = PUT(at, "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ");
    at = put(at, digits + d, sizeof digits - (size_t)d);
    at = PUT(at, "\r\n\r\n");
    at = put(at, body, body_len);
    n = (size_t)(at - g_req);
    while (off < n) {
        ssize_t w = write(g_fd, g_req + off, n - off);
        if (w <= 0) {
            fail("write failed");
        }
        off += (size_t)w;
    }
    g_reply_len = 0;
    for (;;) {
        ssize_t r;
        if (head_len == 0) {
            char *sep;
            g_reply[g_reply_len] = '\0';
            sep = strstr(g_reply, "\r\n\r\n");
            if (sep != NULL) {
                head_len = (size_t)(sep - g_reply) + 4;
                clen = content_length(g_reply, sep + 2);
                if (clen < 0 || head_len + (size_t)clen >= sizeof g_reply) {
                    fail("reply without a usable Content-Length");
                }
            }
        }
        if (head_len != 0 && g_reply_len >= head_len + (size_t)clen) {
            break;
        }
        if (g_reply_len + 1 >= sizeof g_reply) {
            fail("reply too long");
        }
        r = read(g_fd, g_reply + g_reply_len, sizeof g_reply - 1 - g_reply_len);
        if (r <= 0) {
            fail("read failed");
        }
        g_reply_len += (size_t)r;
    }
    g_reply[head_len + (size_t)clen] = '\0';
    g_body = g_reply + head_len;
    if (strstr(g_body, "\"code\":200") == NULL) {
        fprintf(stderr, "floor: %s: reply %s\n", what, g_body);
        exit(1);
    }
}

/* ---- the protocol ------------------------------------------------------------------- */

static void init(const char *app_id, const char *app_key) {
    char timestamp[32], sign[33], body[512];
    const char *field, *end;
    snprintf(timestamp, sizeof timestamp, "%lld", (long long)time(NULL));
    md5_hex(app_id, app_key, timestamp, app_key, sign);
    snprintf(body, sizeof body, "AppId=%s&AppKey=%s&TimeStamp=%s&Sign=%s", app_id, app_key,
             timestamp, sign);
    post("/api/verify", "", body, "Init");
    field = strstr(g_body, "\"api_password\":\"");
    if (field == NULL) {
        fail("Init reply has no api_password");
    }
    field += strlen("\"api_password\":\"");
    end = strchr(field, '"');
    if (end == NULL || end == field || (size_t)(end - field) >= sizeof g_api_password) {
        fail("bad api_password");
    }
    memcpy(g_api_password, field, (size_t)(end - field));
    g_api_password[end - field] = '\0';
    snprintf(g_handle_path, sizeof g_handle_path, "/api/verify/%s", g_api_password);
    snprintf(g_header, sizeof g_header, "X-Api-Password: %s\r\n", g_api_password);
}

/* One Handle call with the given plaintext (at most MAX_PLAINTEXT bytes). */
static void handle(const char *plaintext, const char *what) {
    char timestamp[32], sign[33];
    size_t len = strlen(plaintext);
    if (len > MAX_PLAINTEXT) {
        fail("plaintext too long");
    }
    memcpy(g_cipher, plaintext, len);
    rc4((const unsigned char *)g_api_password, strlen(g_api_password), g_cipher, len);
    hex(g_cipher, len, g_data, "0123456789ABCDEF");
    snprintf(timestamp, sizeof timestamp, "%lld", (long long)time(NULL));
    md5_hex(g_api_password, timestamp, g_data, NULL, sign);
    snprintf(g_form, sizeof g_form, "TimeStamp=%s&Data=%s&Sign=%s", timestamp, g_data, sign);
    post(g_handle_path, g_header, g_form, what);
}

static void one_call(void) {
    handle("action=GetBulletin", "GetBulletin");
}

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

int main(int argc, char **argv) {
    const char *mode;
    long n = 0, i, name_bytes = 0;
    char *end = NULL;
    if (argc < 6) {
        fprintf(stderr, "usage: floor http://IP:PORT APP_ID APP_KEY latency|calls|variables N"
                        " | variable S N | login CARD MAC\n");
        return 2;
    }
    mode = argv[4];
    if (strcmp(mode, "login") == 0) {
        if (argc < 7 || !unreserved(argv[5]) || !unreserved(argv[6]) ||
            strlen(argv[5]) + strlen(argv[6]) > 200) {
            fprintf(stderr, "floor: login CARD MAC: short, of A-Z a-z 0-9 - _ . ~ only\n");
            return 2;
        }
    } else if (strcmp(mode, "variable") == 0) {
        name_bytes = argc >= 7 ? strtol(argv[5], &end, 10) : 0;
        if (name_bytes <= 0 || name_bytes > MAX_NAME || *end != '\0') {
            fprintf(stderr, "floor: variable S N: S from 1 to %d\n", MAX_NAME);
            return 2;
        }
        n = strtol(argv[6], &end, 10);
        if (end == argv[6] || *end != '\0' || n <= 0) {
            fprintf(stderr, "floor: not a positive count: %s\n", argv[6]);
            return 2;
        }
    } else {
        n = strtol(argv[5], &end, 10);
        if (end == argv[5] || *end != '\0' || n <= 0) {
            fprintf(stderr, "floor: not a positive count: %s\n", argv[5]);
            return 2;
        }
    }
    connect_to(argv[1]);
    init(argv[2], argv[3]);
    if (strcmp(mode, "login") == 0) {
        char plaintext[256];
        snprintf(plaintext, sizeof plaintext, "action=SingleLogin&Card=%s&Mac=%s", argv[5],
                 argv[6]);
        handle(plaintext, "SingleLogin");
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
        for (i = 0; i < n; i++) {
            handle(plaintext, "GetVariable");
        }
        printf("variable name_bytes=%ld calls=%ld ok\n", name_bytes, n);
    } else if (strcmp(mode, "variables") == 0) {
        for (i = 0; i < n; i++) {
            handle("action=GetVariable", "GetVariable");
        }
        printf("variables calls=%ld ok\n", n);
    } else {
        fprintf(stderr, "floor: unknown mode %s\n", mode);
        return 2;
    }
    close(g_fd);
    return 0;
}
