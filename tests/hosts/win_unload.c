/*
 * win_unload.c: verify.dll loaded and unloaded CYCLES times (LoadLibrary, FreeLibrary), each
 * time right after a call whose name lookup is still running (run by tests/windows/unload.rs under
 * Wine, x64 and x86, in namespaces of the test's own where the name server never answers).
 *
 *   win_unload CYCLES
 *
 * Each cycle makes a client of https://never-answers.verify.test with a 150 ms call timeout,
 * calls verify_get_bulletin (it fails by its deadline while the lookup goes on), frees the
 * client and unloads the DLL. The lookups outlive the calls: right after the last
 * FreeLibrary the DLL is still loaded (the lookups hold it). When the name server's time
 * runs out they end, and the last one unloads it; the host waits for that (polling
 * GetModuleHandle, up to 60 s). A lookup running library code after its DLL was unmapped
 * would crash the process. The program never links to verify.dll: it only loads it.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "verify.h"

static long checks;
static long failures;

#define CHECK(cond) check((cond) ? 1 : 0, #cond, __LINE__)

static int check(int ok, const char *what, int line)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL win_unload.c:%d: %s\n", line, what);
        fflush(stdout);
    }
    return ok;
}

typedef int32_t(VERIFY_CALL *options_new_fn)(struct verify_client_options **out);
typedef int32_t(VERIFY_CALL *set_timeouts_fn)(struct verify_client_options *options,
                                              uint32_t connect_ms, uint32_t call_ms);
typedef void(VERIFY_CALL *options_free_fn)(struct verify_client_options *options);
typedef int32_t(VERIFY_CALL *client_new_fn)(const char *base_url, const char *app_id,
                                            const char *app_key,
                                            const struct verify_client_options *options,
                                            struct verify_client **out);
typedef int32_t(VERIFY_CALL *bulletin_fn)(const struct verify_client *client,
                                          struct verify_reply **out);
typedef void(VERIFY_CALL *reply_free_fn)(struct verify_reply *reply);
typedef void(VERIFY_CALL *client_free_fn)(struct verify_client *client);

typedef void (*any_fn)(void);

static any_fn find(HMODULE dll, const char *name)
{
    any_fn found = (any_fn)GetProcAddress(dll, name);
    if (!CHECK(found != NULL)) {
        printf("      no export %s\n", name);
    }
    return found;
}

/* One cycle: load, a call whose lookup does not end, free, unload. */
static void cycle(int index)
{
    HMODULE dll = LoadLibraryA("verify.dll");
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

    if (!CHECK(dll != NULL)) {
        return;
    }
    options_new = (options_new_fn)find(dll, "verify_client_options_new");
    set_timeouts = (set_timeouts_fn)find(dll, "verify_client_options_set_timeouts");
    options_free = (options_free_fn)find(dll, "verify_client_options_free");
    client_new = (client_new_fn)find(dll, "verify_client_new_with_options");
    get_bulletin = (bulletin_fn)find(dll, "verify_get_bulletin");
    reply_free = (reply_free_fn)find(dll, "verify_reply_free");
    client_free = (client_free_fn)find(dll, "verify_client_free");
    if (options_new && set_timeouts && options_free && client_new && get_bulletin && reply_free &&
        client_free) {
        CHECK(options_new(&options) == VERIFY_OK);
        CHECK(set_timeouts(options, 100, 150) == VERIFY_OK);
        CHECK(client_new("https://never-answers.verify.test", "app", "key", options, &client) ==
              VERIFY_OK);
        options_free(options);
        code = get_bulletin(client, &reply);
        /* The name is never found within the call: a timeout (or, when the name server was
         * not ready, a network error). */
        if (!CHECK(code == VERIFY_ERR_TIMEOUT || code == VERIFY_ERR_NETWORK)) {
            printf("      cycle %d: verify_get_bulletin gave %d\n", index, (int)code);
        }
        reply_free(reply);
        client_free(client);
    }
    CHECK(FreeLibrary(dll) != 0);
}

int main(int argc, char **argv)
{
    int cycles = argc == 2 ? atoi(argv[1]) : 0;
    int i, waited;

    if (cycles < 1) {
        fprintf(stderr, "usage: %s CYCLES\n", argv[0]);
        return 2;
    }
    for (i = 0; i < cycles; i++) {
        cycle(i);
    }
    /* The lookups still run, and hold the DLL. */
    CHECK(GetModuleHandleA("verify.dll") != NULL);
    for (waited = 0; waited < 1200 && GetModuleHandleA("verify.dll") != NULL; waited++) {
        Sleep(50);
    }
    /* The last lookup to end unloaded it, without a crash. */
    CHECK(GetModuleHandleA("verify.dll") == NULL);
    printf("      %d cycles; the DLL unloaded %d ms after the last FreeLibrary\n", cycles,
           waited * 50);
    printf("RESULT: %ld checks, %ld failed\n", checks, failures);
    fflush(stdout);
    return failures == 0 ? 0 : 1;
}
