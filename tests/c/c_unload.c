/*
 * c_unload.c: libverify.so opened with dlopen and closed with dlclose CYCLES times, each time
 * right after a call whose name lookup is still running (run by tests/c/lifecycle.rs in
 * namespaces of its own, where 127.0.0.1:53 is the name server: this program binds it and
 * never answers).
 *
 *   c_unload CYCLES
 *
 * Each cycle makes a client of https://never-answers.verify.test with a 150 ms call timeout,
 * calls verify_get_bulletin (it fails by its deadline while the lookup goes on), frees the
 * client and closes the library. The program then waits (up to 60 s) for the lookups to end,
 * counting its threads, and prints whether the library was still mapped right after the
 * last dlclose and after the lookups ended. A lookup running code of an unmapped library
 * would crash the process. The program does not link to libverify.so: it only opens it.
 */

#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "verify.h"

static int checks;
static int failures;

#define CHECK(cond) check((cond) ? 1 : 0, #cond, __LINE__)

static int check(int ok, const char *what, int line)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL c_unload.c:%d: %s\n", line, what);
        fflush(stdout);
    }
    return ok;
}

typedef int32_t (*options_new_fn)(struct verify_client_options **out);
typedef int32_t (*set_timeouts_fn)(struct verify_client_options *options, uint32_t connect_ms,
                                   uint32_t call_ms);
typedef void (*options_free_fn)(struct verify_client_options *options);
typedef int32_t (*client_new_fn)(const char *base_url, const char *app_id, const char *app_key,
                                 const struct verify_client_options *options,
                                 struct verify_client **out);
typedef int32_t (*bulletin_fn)(const struct verify_client *client, struct verify_reply **out);
typedef void (*reply_free_fn)(struct verify_reply *reply);
typedef void (*client_free_fn)(struct verify_client *client);

/* A function of the library by name; POSIX guarantees the object-to-function conversion. */
static void *find(void *library, const char *name)
{
    void *found = dlsym(library, name);
    if (!CHECK(found != NULL)) {
        printf("      no symbol %s\n", name);
    }
    return found;
}

static void cycle(int index)
{
    void *library = dlopen("libverify.so", RTLD_NOW | RTLD_LOCAL);
    options_new_fn options_new;
    set_timeouts_fn set_timeouts;
    options_free_fn options_free;
    client_new_fn client_new;
    bulletin_fn get_bulletin;
    reply_free_fn reply_free;
    client_free_fn client_free;
    struct verify_client_options *options = NULL;
    struct verify_client *client = NULL;
    struct verify_reply *reply = NULL;
    int32_t code;

    if (!CHECK(library != NULL)) {
        printf("      %s\n", dlerror());
        return;
    }
    *(void **)&options_new = find(library, "verify_client_options_new");
    *(void **)&set_timeouts = find(library, "verify_client_options_set_timeouts");
    *(void **)&options_free = find(library, "verify_client_options_free");
    *(void **)&client_new = find(library, "verify_client_new_with_options");
    *(void **)&get_bulletin = find(library, "verify_get_bulletin");
    *(void **)&reply_free = find(library, "verify_reply_free");
    *(void **)&client_free = find(library, "verify_client_free");
    if (options_new && set_timeouts && options_free && client_new && get_bulletin && reply_free &&
        client_free) {
        CHECK(options_new(&options) == VERIFY_OK);
        CHECK(set_timeouts(options, 100, 150) == VERIFY_OK);
        CHECK(client_new("https://never-answers.verify.test", "app", "key", options, &client) ==
              VERIFY_OK);
        options_free(options);
        code = get_bulletin(client, &reply);
        if (!CHECK(code == VERIFY_ERR_TIMEOUT)) {
            printf("      cycle %d: verify_get_bulletin gave %d\n", index, (int)code);
        }
        reply_free(reply);
        client_free(client);
    }
    CHECK(dlclose(library) == 0);
}

/* Whether libverify.so is mapped in this process. */
static int mapped(void)
{
    char line[512];
    int found = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) {
        return -1;
    }
    while (fgets(line, sizeof line, maps) != NULL) {
        if (strstr(line, "libverify.so") != NULL) {
            found = 1;
        }
    }
    fclose(maps);
    return found;
}

/* How many threads this process has. */
static int threads(void)
{
    int count = 0;
    struct dirent *entry;
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) {
        return -1;
    }
    while ((entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] != '.') {
            count++;
        }
    }
    closedir(tasks);
    return count;
}

int main(int argc, char **argv)
{
    int cycles = argc == 2 ? atoi(argv[1]) : 0;
    int waited, after_close, running;
    struct sockaddr_in address;
    struct timespec pause = {0, 50000000L};
    int server;

    if (cycles < 1) {
        fprintf(stderr, "usage: %s CYCLES\n", argv[0]);
        return 2;
    }
    /* The name server: queries wait in its socket unanswered. */
    server = socket(AF_INET, SOCK_DGRAM, 0);
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(53);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(server >= 0 && bind(server, (struct sockaddr *)&address, sizeof address) == 0);

    for (int i = 0; i < cycles; i++) {
        cycle(i);
    }
    after_close = mapped();
    running = threads();
    /* The lookups run on: more threads than this one. */
    CHECK(running > 1);
    for (waited = 0; waited < 1200 && threads() > 1; waited++) {
        nanosleep(&pause, NULL);
    }
    CHECK(threads() == 1);
    printf("      %d cycles; right after the last dlclose: %d threads, library %s; "
           "the lookups ended %d ms later; library %s\n",
           cycles, running, after_close ? "mapped" : "unmapped", waited * 50,
           mapped() ? "mapped" : "unmapped");
    printf("RESULT: unload: %d checks, %d failed\n", checks, failures);
    fflush(stdout);
    return failures == 0 ? 0 : 1;
}
