/*
 * lab_client.c: a licensed program's start as a user waits for it, for the network lab
 * (tests/lab/, docs/network-lab.md). The tests run it inside a client namespace of the lab
 * (`ip netns exec`), so that it resolves names through the lab's name server and reaches the
 * sandbox through the lab's impaired link.
 *
 *   lab_client login  URL APP_ID APP_KEY CARD MAC [OPTION...]
 *   lab_client keeper URL APP_ID APP_KEY CARD MAC INTERVAL_MS GRACE_MS [OPTION...]
 *
 * Options:
 *   --ca FILE                trust FILE (PEM) besides Mozilla's roots
 *   --mirror URL             a mirror (repeatable, in order)
 *   --timeouts CONNECT CALL  connect and whole-call timeouts in ms
 *   --attempt-delay MS       the racing attempt delay
 *   --address HOST IP        a fixed address for HOST (repeatable)
 *   --state-folder DIR       the folder of the client's state (the remembered winner)
 *   --log                    print every log event: `log t_ms=T level=L MESSAGE`
 * The last three need the library's racing settings; this file is compiled with
 * -DLAB_HAVE_SET_ATTEMPT_DELAY, -DLAB_HAVE_ADD_ADDRESS and -DLAB_HAVE_SET_STATE_FOLDER when
 * verify.h declares them (tests/lab/lab.rs), and without them such an option exits with 2.
 *
 * `login` makes a client and calls verify_single_login once (Init runs lazily inside it),
 * then prints one line and exits 0 (whatever the code):
 *   login code=C answer_unix_ns=N from_main_ms=M message=TEXT
 * `answer_unix_ns` is CLOCK_REALTIME when the answer (or the failure) came back: the test
 * subtracts the time it started the process, so the figure covers the whole start (exec,
 * loading, DNS, TCP, TLS, Init, SingleLogin). `from_main_ms` is the same from main().
 *
 * `keeper` logs in the same way, prints that line, starts the keeper with INTERVAL_MS and
 * GRACE_MS and prints each event as it comes:
 *   event kind=alive|message|trouble|ended|K t_ms=T code=C message=TEXT
 * (t_ms from main), until a line `stop` (or the end) on stdin: then it prints
 * `stopping state=S` (VERIFY_KEEPER_*, the state before the stop), stops the keeper and
 * prints `stopped`.
 *
 * Exit status: 0 once it ran, 2 for a bad command line, 3 when the client or the keeper
 * cannot be made.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verify.h"

static struct timespec g_main;

static double ms_since_main(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - g_main.tv_sec) * 1000.0 +
           (double)(now.tv_nsec - g_main.tv_nsec) / 1e6;
}

static long long unix_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (long long)now.tv_sec * 1000000000LL + (long long)now.tv_nsec;
}

/* Prints `text` on one line: line breaks become spaces. */
static void print_flat(const char *text)
{
    for (; text != NULL && *text != '\0'; text++) {
        putchar(*text == '\n' || *text == '\r' ? ' ' : *text);
    }
    putchar('\n');
}

static void VERIFY_CALL on_log(void *user_data, int32_t level, const char *message)
{
    (void)user_data;
    printf("log t_ms=%.3f level=%d ", ms_since_main(), (int)level);
    print_flat(message);
    fflush(stdout);
}

static const char *kind_name(int32_t kind)
{
    switch (kind) {
        case VERIFY_EVENT_ALIVE:
            return "alive";
        case VERIFY_EVENT_MESSAGE:
            return "message";
        case VERIFY_EVENT_TROUBLE:
            return "trouble";
        case VERIFY_EVENT_ENDED:
            return "ended";
        default:
            return "other";
    }
}

static void VERIFY_CALL on_event(void *user_data, const verify_event *event)
{
    (void)user_data;
    printf("event kind=%s t_ms=%.3f code=%d message=", kind_name(event->kind), ms_since_main(),
           (int)event->code);
    print_flat(event->message);
    fflush(stdout);
}

static int usage(void)
{
    fprintf(stderr, "usage: lab_client login URL APP_ID APP_KEY CARD MAC [OPTION...]\n"
                    "       lab_client keeper URL APP_ID APP_KEY CARD MAC INTERVAL_MS GRACE_MS "
                    "[OPTION...]\n"
                    "options: --ca FILE, --mirror URL, --timeouts CONNECT_MS CALL_MS, "
                    "--attempt-delay MS, --address HOST IP, --state-folder DIR, --log\n");
    return 2;
}

static int parse_ms(const char *text, uint32_t *out)
{
    char *end = NULL;
    unsigned long value = strtoul(text, &end, 10);
    if (end == text || *end != '\0' || value > 86400000UL) {
        fprintf(stderr, "lab_client: not a time in ms: %s\n", text);
        return 0;
    }
    *out = (uint32_t)value;
    return 1;
}

#if !defined(LAB_HAVE_SET_ATTEMPT_DELAY) || !defined(LAB_HAVE_ADD_ADDRESS) ||                      \
    !defined(LAB_HAVE_SET_STATE_FOLDER)
static int missing_api(const char *option)
{
    fprintf(stderr,
            "lab_client: %s needs a library with the racing settings (this build of "
            "lab_client has none: verify.h did not declare them)\n",
            option);
    return 2;
}
#endif

/* Applies the options in argv[0..argc) to `options`; returns 0, or the exit status. */
static int apply_options(verify_client_options *options, int argc, char **argv)
{
    int i;
    int32_t code = VERIFY_OK;
    for (i = 0; i < argc; i++) {
        const char *option = argv[i];
        int left = argc - i - 1;
        if (strcmp(option, "--ca") == 0 && left >= 1) {
            code = verify_client_options_add_root_file(options, argv[++i]);
        } else if (strcmp(option, "--mirror") == 0 && left >= 1) {
            code = verify_client_options_add_mirror(options, argv[++i]);
        } else if (strcmp(option, "--timeouts") == 0 && left >= 2) {
            uint32_t connect_ms, call_ms;
            if (!parse_ms(argv[i + 1], &connect_ms) || !parse_ms(argv[i + 2], &call_ms)) {
                return 2;
            }
            i += 2;
            code = verify_client_options_set_timeouts(options, connect_ms, call_ms);
        } else if (strcmp(option, "--attempt-delay") == 0 && left >= 1) {
#ifdef LAB_HAVE_SET_ATTEMPT_DELAY
            uint32_t delay_ms;
            if (!parse_ms(argv[++i], &delay_ms)) {
                return 2;
            }
            code = verify_client_options_set_attempt_delay(options, delay_ms);
#else
            return missing_api(option);
#endif
        } else if (strcmp(option, "--address") == 0 && left >= 2) {
#ifdef LAB_HAVE_ADD_ADDRESS
            code = verify_client_options_add_address(options, argv[i + 1], argv[i + 2]);
            i += 2;
#else
            return missing_api(option);
#endif
        } else if (strcmp(option, "--state-folder") == 0 && left >= 1) {
#ifdef LAB_HAVE_SET_STATE_FOLDER
            code = verify_client_options_set_state_folder(options, argv[++i]);
#else
            return missing_api(option);
#endif
        } else if (strcmp(option, "--log") == 0) {
            code = verify_client_options_set_log(options, on_log, NULL);
        } else {
            fprintf(stderr, "lab_client: unknown option or missing value: %s\n", option);
            return usage();
        }
        if (code != VERIFY_OK) {
            fprintf(stderr, "lab_client: %s: %d %s\n", option, (int)code,
                    verify_last_error_message());
            return 3;
        }
    }
    return 0;
}

/* Runs the keeper until `stop` or the end of stdin. */
static int keep(verify_client *client, const char *token, uint32_t interval_ms, uint32_t grace_ms)
{
    verify_keeper_options *options = NULL;
    verify_keeper *keeper = NULL;
    char line[64];
    int32_t code = verify_keeper_options_new(&options);
    if (code == VERIFY_OK) {
        code = verify_keeper_options_set_interval(options, interval_ms);
    }
    if (code == VERIFY_OK) {
        code = verify_keeper_options_set_grace(options, grace_ms);
    }
    if (code == VERIFY_OK) {
        code = verify_keeper_options_set_callback(options, on_event, NULL);
    }
    if (code == VERIFY_OK) {
        code = verify_keeper_start(client, token, VERIFY_SESSION_CARD, options, &keeper);
    }
    verify_keeper_options_free(options);
    if (code != VERIFY_OK) {
        fprintf(stderr, "lab_client: the keeper does not start: %d %s\n", (int)code,
                verify_last_error_message());
        return 3;
    }
    printf("keeper started t_ms=%.3f\n", ms_since_main());
    fflush(stdout);
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (strncmp(line, "stop", 4) == 0) {
            break;
        }
    }
    printf("stopping state=%d\n", (int)verify_keeper_state(keeper));
    fflush(stdout);
    verify_keeper_stop(keeper);
    printf("stopped\n");
    fflush(stdout);
    verify_keeper_free(keeper);
    return 0;
}

int main(int argc, char **argv)
{
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    const char *token = NULL;
    uint32_t interval_ms = 0, grace_ms = 0;
    int first_option = 7, status;
    int32_t code;
    long long answer;
    double from_main;

    clock_gettime(CLOCK_MONOTONIC, &g_main);
    if (argc < 7) {
        return usage();
    }
    if (strcmp(argv[1], "keeper") == 0) {
        if (argc < 9 || !parse_ms(argv[7], &interval_ms) || !parse_ms(argv[8], &grace_ms)) {
            return usage();
        }
        first_option = 9;
    } else if (strcmp(argv[1], "login") != 0) {
        return usage();
    }
    if (verify_client_options_new(&options) != VERIFY_OK) {
        fprintf(stderr, "lab_client: options: %s\n", verify_last_error_message());
        return 3;
    }
    status = apply_options(options, argc - first_option, argv + first_option);
    if (status == 0) {
        code = verify_client_new_with_options(argv[2], argv[3], argv[4], options, &client);
        if (code != VERIFY_OK) {
            fprintf(stderr, "lab_client: client: %d %s\n", (int)code, verify_last_error_message());
            status = 3;
        }
    }
    verify_client_options_free(options);
    if (status != 0) {
        return status;
    }

    code = verify_single_login(client, argv[5], argv[6], NULL, &reply);
    answer = unix_ns();
    from_main = ms_since_main();
    printf("login code=%d answer_unix_ns=%lld from_main_ms=%.3f message=", (int)code, answer,
           from_main);
    print_flat(reply != NULL ? verify_reply_message(reply) : verify_last_error_message());
    fflush(stdout);

    if (strcmp(argv[1], "keeper") == 0) {
        if (code != VERIFY_OK || verify_reply_str(reply, "/data/token", &token) != 0) {
            fprintf(stderr, "lab_client: no session to keep (login gave %d)\n", (int)code);
            status = 3;
        } else {
            status = keep(client, token, interval_ms, grace_ms);
        }
    }
    verify_reply_free(reply);
    verify_client_free(client);
    return status;
}
