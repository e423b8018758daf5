/*
 * win_unload.c: verify.dll loaded and unloaded CYCLES times (LoadLibrary, FreeLibrary), each
 * time right after a call whose name lookup is still running, or right after a keeper was
 * stopped (run by tests/platforms/windows/unload.rs under Wine, x64 and x86).
 *
 *   win_unload CYCLES
 *   win_unload CYCLES BASE_URL APP_ID APP_KEY CARD
 *
 * Lookups (the first form; in namespaces of the test's own where the name server never
 * answers): each cycle makes a client of https://never-answers.verify.test with a 150 ms
 * call timeout, calls verify_get_bulletin (it fails by its deadline while the lookup goes
 * on), frees the client and unloads the DLL. The lookups outlive the calls: right after the
 * last FreeLibrary the DLL is still loaded (the lookups hold it). When the name server's
 * time runs out they end, and the last one unloads it; the host waits for that (polling
 * GetModuleHandle, up to 60 s). A lookup running library code after its DLL was unmapped
 * would crash the process.
 *
 * Keepers (the second form; the sandbox at BASE_URL, where CARD exists): each cycle makes a
 * client, logs the card in, starts a keeper beating every second and waits (polling its
 * status, up to 30 s) until a heartbeat has succeeded, then stops and frees the keeper,
 * frees the client and unloads the DLL. verify_keeper_stop joins the keeper's threads, and
 * the calls leave nothing running: before FreeLibrary the process has as many threads as
 * before the first LoadLibrary (a Toolhelp snapshot, polled up to 5 s), each FreeLibrary
 * unloads the DLL (GetModuleHandle gives NULL, polled up to 10 s), and the next cycle loads
 * it afresh. A keeper thread left running would be counted before FreeLibrary, and would
 * crash the process when it next ran in the unloaded DLL (both seen with keepers that were
 * neither stopped nor freed, nor their client freed).
 *
 * The program never links to verify.dll: it only loads it.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include <tlhelp32.h>

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
typedef int32_t(VERIFY_CALL *plain_client_new_fn)(const char *base_url, const char *app_id,
                                                  const char *app_key, struct verify_client **out);
typedef int32_t(VERIFY_CALL *single_login_fn)(const struct verify_client *client, const char *card,
                                              const char *mac, const char *device_name,
                                              struct verify_reply **out);
typedef int32_t(VERIFY_CALL *reply_str_fn)(const struct verify_reply *reply, const char *pointer,
                                           const char **out);
typedef int32_t(VERIFY_CALL *keeper_options_new_fn)(struct verify_keeper_options **out);
typedef int32_t(VERIFY_CALL *keeper_set_interval_fn)(struct verify_keeper_options *options,
                                                     uint32_t interval_ms);
typedef void(VERIFY_CALL *keeper_options_free_fn)(struct verify_keeper_options *options);
typedef int32_t(VERIFY_CALL *keeper_start_fn)(const struct verify_client *client, const char *token,
                                              int32_t kind,
                                              const struct verify_keeper_options *options,
                                              struct verify_keeper **out);
typedef int32_t(VERIFY_CALL *keeper_get_status_fn)(const struct verify_keeper *keeper,
                                                   struct verify_keeper_status **out);
typedef int32_t(VERIFY_CALL *status_counts_fn)(const struct verify_keeper_status *status,
                                               uint64_t *ok, uint64_t *failed);
typedef void(VERIFY_CALL *status_free_fn)(struct verify_keeper_status *status);
typedef int32_t(VERIFY_CALL *keeper_state_fn)(const struct verify_keeper *keeper);
typedef int32_t(VERIFY_CALL *keeper_stop_fn)(const struct verify_keeper *keeper);
typedef void(VERIFY_CALL *keeper_free_fn)(struct verify_keeper *keeper);

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

/* The keeper's functions, looked up in one loaded DLL. */
struct keeper_api {
    plain_client_new_fn client_new;
    single_login_fn single_login;
    reply_str_fn reply_str;
    reply_free_fn reply_free;
    client_free_fn client_free;
    keeper_options_new_fn options_new;
    keeper_set_interval_fn set_interval;
    keeper_options_free_fn options_free;
    keeper_start_fn start;
    keeper_get_status_fn get_status;
    status_counts_fn counts;
    status_free_fn status_free;
    keeper_state_fn state;
    keeper_stop_fn stop;
    keeper_free_fn free;
};

static int keeper_api_of(HMODULE dll, struct keeper_api *api)
{
    api->client_new = (plain_client_new_fn)find(dll, "verify_client_new");
    api->single_login = (single_login_fn)find(dll, "verify_single_login");
    api->reply_str = (reply_str_fn)find(dll, "verify_reply_str");
    api->reply_free = (reply_free_fn)find(dll, "verify_reply_free");
    api->client_free = (client_free_fn)find(dll, "verify_client_free");
    api->options_new = (keeper_options_new_fn)find(dll, "verify_keeper_options_new");
    api->set_interval = (keeper_set_interval_fn)find(dll, "verify_keeper_options_set_interval");
    api->options_free = (keeper_options_free_fn)find(dll, "verify_keeper_options_free");
    api->start = (keeper_start_fn)find(dll, "verify_keeper_start");
    api->get_status = (keeper_get_status_fn)find(dll, "verify_keeper_get_status");
    api->counts = (status_counts_fn)find(dll, "verify_keeper_status_counts");
    api->status_free = (status_free_fn)find(dll, "verify_keeper_status_free");
    api->state = (keeper_state_fn)find(dll, "verify_keeper_state");
    api->stop = (keeper_stop_fn)find(dll, "verify_keeper_stop");
    api->free = (keeper_free_fn)find(dll, "verify_keeper_free");
    return api->client_new && api->single_login && api->reply_str && api->reply_free &&
           api->client_free && api->options_new && api->set_interval && api->options_free &&
           api->start && api->get_status && api->counts && api->status_free && api->state &&
           api->stop && api->free;
}

/* Polls the keeper's status, up to `limit_ms`, until a heartbeat has succeeded. */
static int keeper_has_beaten(const struct keeper_api *api, const struct verify_keeper *keeper,
                             DWORD limit_ms)
{
    DWORD start = GetTickCount();
    for (;;) {
        struct verify_keeper_status *status = NULL;
        uint64_t ok = 0, failed = 0;
        if (api->get_status(keeper, &status) == VERIFY_OK) {
            api->counts(status, &ok, &failed);
            api->status_free(status);
        }
        if (ok > 0) {
            return 1;
        }
        if (GetTickCount() - start > limit_ms) {
            return 0;
        }
        Sleep(10);
    }
}

/* Polls, up to `limit_ms`, until verify.dll is no longer loaded; how many times it was seen
 * still loaded first (0: gone at the first look), or -1 when it still is at the limit. */
static long unloaded_within(DWORD limit_ms)
{
    DWORD start = GetTickCount();
    long seen = 0;
    while (GetModuleHandleA("verify.dll") != NULL) {
        if (GetTickCount() - start > limit_ms) {
            return -1;
        }
        seen++;
        Sleep(10);
    }
    return seen;
}

/* How many threads this process has (-1: the snapshot failed). */
static long thread_count(void)
{
    DWORD self = GetCurrentProcessId();
    HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
    THREADENTRY32 entry;
    long count = 0;

    if (snapshot == INVALID_HANDLE_VALUE) {
        return -1;
    }
    entry.dwSize = sizeof entry;
    if (Thread32First(snapshot, &entry)) {
        do {
            if (entry.th32OwnerProcessID == self) {
                count++;
            }
            entry.dwSize = sizeof entry;
        } while (Thread32Next(snapshot, &entry));
    }
    CloseHandle(snapshot);
    return count;
}

/* Polls, up to `limit_ms`, until the process has `expected` threads again; the last count. */
static long threads_back_to(long expected, DWORD limit_ms)
{
    DWORD start = GetTickCount();
    long count = thread_count();
    while (count != expected && GetTickCount() - start <= limit_ms) {
        Sleep(10);
        count = thread_count();
    }
    return count;
}

/* One cycle: load, a card login, a keeper that has beaten, stopped and freed, unload. */
static long keeper_cycle(int index, long threads_before, const char *base_url, const char *app_id,
                         const char *app_key, const char *card)
{
    HMODULE dll = LoadLibraryA("verify.dll");
    struct keeper_api api;
    struct verify_client *client = NULL;
    struct verify_reply *login = NULL;
    struct verify_keeper_options *options = NULL;
    struct verify_keeper *keeper = NULL;
    const char *token = NULL;
    int32_t code;
    long seen, threads;

    if (!CHECK(dll != NULL)) {
        return -1;
    }
    if (keeper_api_of(dll, &api)) {
        CHECK(api.client_new(base_url, app_id, app_key, &client) == VERIFY_OK);
        code = api.single_login(client, card, "UNLOAD-MACHINE", NULL, &login);
        if (!CHECK(code == VERIFY_OK)) {
            printf("      cycle %d: verify_single_login gave %d\n", index, (int)code);
        }
        CHECK(api.reply_str(login, "/data/token", &token) == 0 && token != NULL);
        CHECK(api.options_new(&options) == VERIFY_OK);
        CHECK(api.set_interval(options, 1000) == VERIFY_OK);
        code = api.start(client, token ? token : "", VERIFY_SESSION_CARD, options, &keeper);
        if (!CHECK(code == VERIFY_OK)) {
            printf("      cycle %d: verify_keeper_start gave %d\n", index, (int)code);
        }
        api.options_free(options);
        api.reply_free(login);
        if (keeper != NULL) {
            if (!CHECK(keeper_has_beaten(&api, keeper, 30000))) {
                printf("      cycle %d: no heartbeat succeeded within 30 s\n", index);
            }
            CHECK(api.state(keeper) == VERIFY_KEEPER_ALIVE);
            CHECK(api.stop(keeper) == VERIFY_OK);
            CHECK(api.state(keeper) == VERIFY_KEEPER_ENDED);
            api.free(keeper);
        }
        api.client_free(client);
    }
    /* Every thread the library started has ended: the process has as many threads as before
     * the first LoadLibrary. Counted before FreeLibrary, so that a thread left running is
     * named here rather than by the page fault it takes when it next runs in the unloaded
     * DLL (with keepers left running, both happen). */
    threads = threads_back_to(threads_before, 5000);
    if (!CHECK(threads == threads_before)) {
        printf("      cycle %d: %ld threads before FreeLibrary, %ld before the first "
               "LoadLibrary\n",
               index, threads, threads_before);
        FreeLibrary(dll);
        return -1;
    }
    CHECK(FreeLibrary(dll) != 0);
    /* Nothing of the library runs any more: this FreeLibrary unloaded it. */
    seen = unloaded_within(10000);
    if (!CHECK(seen >= 0)) {
        printf("      cycle %d: verify.dll still loaded 10 s after FreeLibrary\n", index);
    }
    return seen;
}

int main(int argc, char **argv)
{
    int cycles = argc == 2 || argc == 6 ? atoi(argv[1]) : 0;
    int i, waited;
    int at_once = 0;

    if (cycles < 1) {
        fprintf(stderr, "usage: %s CYCLES [BASE_URL APP_ID APP_KEY CARD]\n", argv[0]);
        return 2;
    }
    if (argc == 6) {
        long threads_before = thread_count();
        CHECK(threads_before > 0);
        for (i = 0; i < cycles; i++) {
            long seen = keeper_cycle(i, threads_before, argv[2], argv[3], argv[4], argv[5]);
            if (seen < 0) {
                break; /* reported; the next cycles would only repeat it */
            }
            if (seen == 0) {
                at_once++;
            }
        }
        printf("      %ld threads before the first LoadLibrary and before each FreeLibrary\n",
               threads_before);
        printf("      %d keeper cycles; the DLL was gone at once after %d of the FreeLibrary "
               "calls (polled for the others)\n",
               cycles, at_once);
        printf("RESULT: %ld checks, %ld failed\n", checks, failures);
        fflush(stdout);
        return failures == 0 ? 0 : 1;
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
