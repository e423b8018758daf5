/*
 * c_memscan.c: after verify_client_free, are the secrets the client used still in this
 * process's memory? (run by tests/c/memscan.rs; SECURITY.md)
 *
 *   c_memscan BASE_URL APP_ID APP_KEY CARD USER PASSWORD
 *
 * Makes a client, runs Init, a card login and its heartbeat, an account login and its
 * heartbeat, GetUserInfo (card, password, the two tokens and the session secret all cross
 * the library), frees every reply and the client, then asks the test for the session
 * secrets the server issued (`@@ secrets`, answered `NAME=VALUE ...`: the test reads them
 * from the sandbox's state file) and reads its own memory through /proc/self/maps and
 * /proc/self/mem: the heap and every anonymous writable mapping (malloc arenas, the
 * stacks of the library's finished threads). For each copy of a secret it prints
 *
 *   FOUND NAME REGION OFFSET BEFORE|AFTER
 *
 * with up to 200 bytes of context either side (the secret itself never printed; other
 * secrets in the context masked as <NAME>; bytes outside printable ASCII as '.'), and
 * `FOUND NAME+tail ...` for a copy that lost its first 16 bytes (see search()), then
 * `SCANNED N regions, M bytes` and the RESULT line.
 *
 * The host keeps no copy of a secret on the heap: the AppKey, card and password are
 * passed straight from argv (on the main stack, which is not scanned), the tokens are
 * copied from the replies into arrays on main's stack, the test's answer is read with
 * read(2) into a stack array (stdio's stdin buffer would be on the heap), and nothing
 * secret is printed (stdout's buffer is on the heap too). The scan buffer is a mapping of
 * its own, skipped.
 *
 * Linux only (/proc); POSIX (-D_POSIX_C_SOURCE=200809L).
 */

#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS (Linux) */

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host.h"

#define MACHINE "MEMSCAN-MACHINE-0001"
#define MAX_SECRETS 16
#define SECRET_MAX 128
#define CONTEXT 200
#define SCAN_BUFFER (1 << 20)

struct secret {
    char name[32];
    char value[SECRET_MAX + 1];
    size_t len;
};

static struct secret *secrets; /* main's stack array */
static size_t secret_count;
static size_t found_count;
static unsigned char *scan_buffer; /* a mapping of its own, not scanned */

static void add_secret(struct secret *list, const char *name, const char *value)
{
    size_t len = strlen(value);
    if (secret_count >= MAX_SECRETS || len == 0 || len > SECRET_MAX) {
        printf("FAIL: secret %s not added (%zu bytes)\n", name, len);
        exit(3);
    }
    memset(&list[secret_count], 0, sizeof list[secret_count]);
    strncpy(list[secret_count].name, name, sizeof list[secret_count].name - 1);
    memcpy(list[secret_count].value, value, len);
    list[secret_count].len = len;
    secret_count++;
}

/* Prints `len` bytes of context: other secrets as <NAME>, non-printable bytes as '.'. */
static void print_context(const unsigned char *bytes, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t s;
        int masked = 0;
        for (s = 0; s < secret_count; s++) {
            if (secrets[s].len <= len - i &&
                memcmp(bytes + i, secrets[s].value, secrets[s].len) == 0) {
                printf("<%s>", secrets[s].name);
                i += secrets[s].len;
                masked = 1;
                break;
            }
        }
        if (masked) {
            continue;
        }
        putchar(bytes[i] >= 0x20 && bytes[i] < 0x7f && bytes[i] != '|' ? bytes[i] : '.');
        i++;
    }
}

static void report(const char *name, const char *kind, const char *region, unsigned long offset,
                   const unsigned char *chunk, size_t len, size_t at, size_t match_len)
{
    size_t before = at < CONTEXT ? at : CONTEXT;
    size_t end = at + match_len;
    size_t after = len - end < CONTEXT ? len - end : CONTEXT;
    printf("FOUND %s%s %s %lu ", name, kind, region, offset);
    print_context(chunk + at - before, before);
    putchar('|');
    print_context(chunk + end, after);
    putchar('\n');
    found_count++;
}

/*
 * Searches one chunk read from a region; `base` is the chunk's offset in the region. A
 * whole copy is reported as NAME; a copy whose first TAIL_SKIP bytes were overwritten is
 * reported as NAME+tail: glibc writes its free-list pointers over the first 16 bytes of a
 * freed block, so a freed string that was not wiped keeps only its tail. Tails are searched
 * for secrets of at least TAIL_SKIP + 8 bytes.
 */
#define TAIL_SKIP 16
static void search(const unsigned char *chunk, size_t len, const char *region, unsigned long base)
{
    size_t s;
    for (s = 0; s < secret_count; s++) {
        const struct secret *secret = &secrets[s];
        const unsigned char *tail = (const unsigned char *)secret->value + TAIL_SKIP;
        size_t tail_len = secret->len > TAIL_SKIP ? secret->len - TAIL_SKIP : 0;
        size_t at;
        for (at = 0; at + secret->len <= len; at++) {
            if (chunk[at] == (unsigned char)secret->value[0] &&
                memcmp(chunk + at, secret->value, secret->len) == 0) {
                report(secret->name, "", region, base + (unsigned long)at, chunk, len, at,
                       secret->len);
            }
        }
        if (tail_len < 8) {
            continue;
        }
        for (at = 0; at + tail_len <= len; at++) {
            if (chunk[at] != tail[0] || memcmp(chunk + at, tail, tail_len) != 0) {
                continue;
            }
            if (at >= TAIL_SKIP && memcmp(chunk + at - TAIL_SKIP, secret->value, TAIL_SKIP) == 0) {
                continue; /* part of a whole copy, reported above */
            }
            report(secret->name, "+tail", region, base + (unsigned long)at, chunk, len, at,
                   tail_len);
        }
    }
}

/* Reads a region through /proc/self/mem in chunks that overlap by SECRET_MAX bytes. */
static unsigned long scan_region(int mem, unsigned long start, unsigned long end,
                                 const char *region)
{
    unsigned long offset = 0;
    unsigned long size = end - start;
    unsigned long scanned = 0;
    while (offset < size) {
        size_t want = size - offset < SCAN_BUFFER ? (size_t)(size - offset) : SCAN_BUFFER;
        ssize_t got = pread(mem, scan_buffer, want, (off_t)(start + offset));
        if (got <= 0) {
            break; /* a guard page or an unreadable part */
        }
        search(scan_buffer, (size_t)got, region, offset);
        scanned += (unsigned long)got;
        if ((size_t)got < want || offset + (unsigned long)got >= size) {
            break;
        }
        offset += (unsigned long)got - SECRET_MAX;
    }
    return scanned;
}

static void scan(void)
{
    char line[512];
    unsigned long regions = 0, bytes = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    int mem = open("/proc/self/mem", O_RDONLY);
    if (!CHECK(maps != NULL) || !CHECK(mem >= 0)) {
        return;
    }
    while (fgets(line, sizeof line, maps) != NULL) {
        unsigned long start, end;
        char perms[8] = "";
        char path[256] = "";
        const char *region;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255[^\n]", &start, &end, perms, path) < 3) {
            continue;
        }
        if (perms[0] != 'r' || perms[1] != 'w') {
            continue;
        }
        if (start == (unsigned long)scan_buffer) {
            continue;
        }
        if (strcmp(path, "[heap]") == 0) {
            region = "heap";
        } else if (path[0] == '\0') {
            region = "anon";
        } else {
            continue; /* the stack (argv), files' data, vvar */
        }
        regions++;
        bytes += scan_region(mem, start, end, region);
    }
    fclose(maps);
    close(mem);
    printf("SCANNED %lu regions, %lu bytes\n", regions, bytes);
}

/* Copies the string at `pointer` of `reply` into `out` (on the caller's stack). */
static void keep(const verify_reply *reply, const char *pointer, char *out, size_t out_len)
{
    const char *value = NULL;
    out[0] = '\0';
    if (CHECK_INT(verify_reply_str(reply, pointer, &value), 0) && CHECK(value != NULL) &&
        CHECK(strlen(value) < out_len)) {
        memcpy(out, value, strlen(value) + 1);
    }
}

int main(int argc, char **argv)
{
    struct secret list[MAX_SECRETS];
    char card_token[SECRET_MAX + 1];
    char user_token[SECRET_MAX + 1];
    char answer[2048];
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    size_t used = 0;
    char *word;
    char *rest;

    if (argc != 7) {
        printf("usage: c_memscan BASE_URL APP_ID APP_KEY CARD USER PASSWORD\n");
        return 2;
    }
    secrets = list;
    scan_buffer =
        mmap(NULL, SCAN_BUFFER, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (scan_buffer == MAP_FAILED) {
        printf("FAIL: mmap\n");
        return 3;
    }

    CHECK_INT(verify_client_new(argv[1], argv[2], argv[3], &client), VERIFY_OK);
    if (client == NULL) {
        return host_finish("memscan");
    }
    CHECK_INT(verify_init(client, &reply), VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_single_login(client, argv[4], MACHINE, NULL, &reply), VERIFY_OK);
    keep(reply, "/data/token", card_token, sizeof card_token);
    verify_reply_free(reply);
    CHECK_INT(verify_heartbeat(client, card_token, VERIFY_SESSION_CARD, NULL, &reply), VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_user_login(client, argv[5], argv[6], MACHINE, &reply), VERIFY_OK);
    keep(reply, "/data/token", user_token, sizeof user_token);
    verify_reply_free(reply);
    CHECK_INT(verify_heartbeat(client, user_token, VERIFY_SESSION_USER, NULL, &reply), VERIFY_OK);
    verify_reply_free(reply);
    CHECK_INT(verify_get_user_info(client, argv[5], argv[6], &reply), VERIFY_OK);
    verify_reply_free(reply);
    verify_client_free(client);
    reply = NULL;
    client = NULL;

    /* The session secrets, read with read(2) into this stack array. */
    printf("@@ secrets\n");
    fflush(stdout);
    while (used < sizeof answer - 1) {
        ssize_t got = read(0, answer + used, sizeof answer - 1 - used);
        if (got <= 0) {
            break;
        }
        used += (size_t)got;
        if (memchr(answer, '\n', used) != NULL) {
            break;
        }
    }
    answer[used] = '\0';
    answer[strcspn(answer, "\r\n")] = '\0';

    add_secret(list, "app_key", argv[3]);
    add_secret(list, "card", argv[4]);
    add_secret(list, "password", argv[6]);
    add_secret(list, "card_token", card_token);
    add_secret(list, "user_token", user_token);
    for (word = strtok_r(answer, " ", &rest); word != NULL; word = strtok_r(NULL, " ", &rest)) {
        char *equals = strchr(word, '=');
        if (CHECK(equals != NULL)) {
            *equals = '\0';
            add_secret(list, word, equals + 1);
        }
    }
    CHECK(secret_count > 5); /* at least one session secret */

    scan();
    printf("FOUND %zu copies\n", found_count);
    /* The copies are judged by the test (SECURITY.md says which are tolerated). */
    memset(list, 0, sizeof list);
    memset(answer, 0, sizeof answer);
    return host_finish("memscan");
}
