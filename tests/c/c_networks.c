/*
 * c_networks.c: the client options of the C ABI (trust, pins, mirrors, racing and its
 * attempt delay, fixed addresses, the state folder, plain-http opt-in, proxy choice,
 * timeouts, the log callback), as a C host uses them.
 * Run by tests/c/networks.rs against the sandbox (http and https listeners):
 *
 *   c_networks options                                   setters refuse bad values
 *   c_networks tls HTTPS_URL APP_ID APP_KEY CA_FILE PIN WRONG_PIN CARD
 *   c_networks failover DEAD_URL GOOD_URL APP_ID APP_KEY CARD MAC
 *   c_networks race HOLE_URL GOOD_URL GOOD_PORT APP_ID APP_KEY STATE_DIR
 *
 * Prints "RESULT: N checks, M failed" (see host.h). POSIX: the monotonic clock
 * (-D_POSIX_C_SOURCE=200809L).
 */

#include "host.h"

static int check_code(int32_t code, int32_t expected, const char *what, int line)
{
    return host_check_int(code, expected, what, __FILE__, line);
}
#define EXPECT(call, expected) check_code((call), (expected), #call, __LINE__)

static int scenario_options(void)
{
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    EXPECT(verify_client_options_new(NULL), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_new(&options), VERIFY_OK);
    CHECK(options != NULL);
    EXPECT(verify_client_options_set_trust(options, 8), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_trust(NULL, VERIFY_TRUST_MOZILLA),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_add_pin(options, "not base64!"), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_add_pin(options, "AAAA"), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_add_pin(options, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_add_root_pem(options, "junk"), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_add_root_file(options, "/nonexistent/ca.pem"),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_proxy(options, VERIFY_PROXY_URL, NULL),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_proxy(options, VERIFY_PROXY_NONE, "http://x:1"),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_proxy(options, 7, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_proxy(options, VERIFY_PROXY_NONE, NULL), VERIFY_OK);
    EXPECT(verify_client_options_allow_insecure_http(options, 2), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_timeouts(options, 0, 1000), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_timeouts(options, 1000, 2000), VERIFY_OK);
    EXPECT(verify_client_options_set_log(options, NULL, NULL), VERIFY_OK);
    EXPECT(verify_client_options_set_attempt_delay(NULL, 250), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_attempt_delay(options, 10001), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_attempt_delay(options, UINT32_MAX),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_attempt_delay(options, 0), VERIFY_OK);
    EXPECT(verify_client_options_set_attempt_delay(options, 10000), VERIFY_OK);
    EXPECT(verify_client_options_add_address(NULL, "a.example", "192.0.2.1"),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_add_address(options, NULL, "192.0.2.1"),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_add_address(options, "a.example", NULL),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_add_address(options, "a.example", "999.1.1.1"),
           VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(strstr(verify_last_error_message(), "not an IPv4 or IPv6 address") != NULL);
    EXPECT(verify_client_options_add_address(options, "a b.example", "192.0.2.1"),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_add_address(options, "", "192.0.2.1"),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_add_address(options, "\xff", "192.0.2.1"),
           VERIFY_ERR_INVALID_UTF8);
    EXPECT(verify_client_options_add_address(options, "a.example", "192.0.2.1"), VERIFY_OK);
    EXPECT(verify_client_options_add_address(options, "a.example", "[2001:db8::1]"), VERIFY_OK);
    EXPECT(verify_client_options_set_state_folder(NULL, "/tmp"), VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_state_folder(options, "\xff"), VERIFY_ERR_INVALID_UTF8);
    EXPECT(verify_client_options_set_state_folder(options, NULL), VERIFY_OK);
    EXPECT(verify_client_options_set_state_folder(options, ""), VERIFY_OK);
    EXPECT(verify_client_options_set_remembered_addresses_max_age(NULL, 60),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_remembered_addresses_max_age(options, 0), VERIFY_OK);
    EXPECT(verify_client_options_set_remembered_addresses_max_age(options, UINT32_MAX), VERIFY_OK);
    EXPECT(verify_client_options_set_remembered_addresses_max_age(options, 86400), VERIFY_OK);

    /* Plain http off loopback: refused, then allowed. */
    EXPECT(verify_client_new("http://licensing.example.com", "1", "K", &client),
           VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(strstr(verify_last_error_message(), "in clear") != NULL);
    CHECK(client == NULL);
    EXPECT(
        verify_client_new_with_options("http://licensing.example.com", "1", "K", options, &client),
        VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_allow_insecure_http(options, 1), VERIFY_OK);
    EXPECT(
        verify_client_new_with_options("http://licensing.example.com", "1", "K", options, &client),
        VERIFY_OK);
    verify_client_free(client);
    client = NULL;

    /* A proxy URL that does not parse is refused when the client is made. */
    EXPECT(verify_client_options_set_proxy(options, VERIFY_PROXY_URL, "ftp://x:1"), VERIFY_OK);
    EXPECT(verify_client_new_with_options("https://x.example", "1", "K", options, &client),
           VERIFY_ERR_INVALID_ARGUMENT);
    EXPECT(verify_client_options_set_proxy(options, VERIFY_PROXY_SYSTEM, NULL), VERIFY_OK);

    /* Trusting nothing is refused; a bad mirror is refused. */
    EXPECT(verify_client_options_set_trust(options, 0), VERIFY_OK);
    EXPECT(verify_client_new_with_options("https://x.example", "1", "K", options, &client),
           VERIFY_ERR_INVALID_ARGUMENT);
    CHECK(strstr(verify_last_error_message(), "nothing to trust") != NULL);
    EXPECT(verify_client_options_set_trust(options, VERIFY_TRUST_MOZILLA | VERIFY_TRUST_SYSTEM),
           VERIFY_OK);
    EXPECT(verify_client_options_add_mirror(options, "http://h:99999"), VERIFY_OK);
    EXPECT(verify_client_new_with_options("https://x.example", "1", "K", options, &client),
           VERIFY_ERR_INVALID_ARGUMENT);
    verify_client_options_free(options);
    verify_client_options_free(NULL);

    /* NULL options are the defaults. */
    EXPECT(verify_client_new_with_options("https://x.example", "1", "K", NULL, &client), VERIFY_OK);
    verify_client_free(client);
    return host_finish("options");
}

static verify_client *client_with(const char *url, const char *app_id, const char *app_key,
                                  verify_client_options *options)
{
    verify_client *client = NULL;
    EXPECT(verify_client_new_with_options(url, app_id, app_key, options, &client), VERIFY_OK);
    return client;
}

static int32_t bulletin(verify_client *client)
{
    verify_reply *reply = NULL;
    int32_t code = verify_get_bulletin(client, &reply);
    verify_reply_free(reply);
    return code;
}

static int scenario_tls(char **argv)
{
    const char *url = argv[2], *app_id = argv[3], *app_key = argv[4];
    const char *ca_file = argv[5], *pin = argv[6], *wrong_pin = argv[7], *card = argv[8];
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    const char *token = NULL;

    /* The custom CA alone. */
    EXPECT(verify_client_options_new(&options), VERIFY_OK);
    EXPECT(verify_client_options_set_trust(options, 0), VERIFY_OK);
    EXPECT(verify_client_options_add_root_file(options, ca_file), VERIFY_OK);
    client = client_with(url, app_id, app_key, options);
    EXPECT(verify_single_login(client, card, "MAC-C-TLS", NULL, &reply), VERIFY_OK);
    EXPECT(verify_reply_str(reply, "/data/token", &token), 0);
    CHECK(token != NULL && strlen(token) == 40);
    verify_reply_free(reply);
    verify_client_free(client);
    verify_client_options_free(options);

    /* Mozilla's roots alone: unknown issuer. */
    EXPECT(verify_client_new(url, app_id, app_key, &client), VERIFY_OK);
    EXPECT(bulletin(client), VERIFY_ERR_TLS);
    CHECK(strstr(verify_last_error_message(), "unknown issuer") != NULL);
    verify_client_free(client);

    /* The right pin, no CA. */
    EXPECT(verify_client_options_new(&options), VERIFY_OK);
    EXPECT(verify_client_options_set_trust(options, 0), VERIFY_OK);
    EXPECT(verify_client_options_add_pin(options, pin), VERIFY_OK);
    client = client_with(url, app_id, app_key, options);
    EXPECT(bulletin(client), VERIFY_OK);
    verify_client_free(client);
    verify_client_options_free(options);

    /* A valid chain with a wrong pin: its own code. */
    EXPECT(verify_client_options_new(&options), VERIFY_OK);
    EXPECT(verify_client_options_add_root_file(options, ca_file), VERIFY_OK);
    EXPECT(verify_client_options_add_pin(options, wrong_pin), VERIFY_OK);
    client = client_with(url, app_id, app_key, options);
    EXPECT(bulletin(client), VERIFY_ERR_PIN);
    verify_client_free(client);
    verify_client_options_free(options);
    return host_finish("tls");
}

/* The log callback's messages, kept for the secret scan. */
static char log_text[65536];
static size_t log_len;
static int log_calls;

static void VERIFY_CALL on_log(void *user_data, int32_t level, const char *message)
{
    size_t length = strlen(message);
    CHECK(user_data == (void *)log_text);
    CHECK(level >= VERIFY_LOG_ERROR && level <= VERIFY_LOG_DEBUG);
    log_calls++;
    if (log_len + length + 2 < sizeof log_text) {
        memcpy(log_text + log_len, message, length);
        log_len += length;
        log_text[log_len++] = '\n';
        log_text[log_len] = '\0';
    }
}

static int scenario_failover(char **argv)
{
    const char *dead = argv[2], *good = argv[3], *app_id = argv[4], *app_key = argv[5];
    const char *card = argv[6], *mac = argv[7];
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    const char *token = NULL;
    char *token_copy = NULL;

    EXPECT(verify_client_options_new(&options), VERIFY_OK);
    EXPECT(verify_client_options_add_mirror(options, good), VERIFY_OK);
    EXPECT(verify_client_options_set_log(options, on_log, log_text), VERIFY_OK);
    client = client_with(dead, app_id, app_key, options);
    verify_client_options_free(options); /* copied by the client */
    EXPECT(verify_single_login(client, card, mac, NULL, &reply), VERIFY_OK);
    if (verify_reply_str(reply, "/data/token", &token) == 0) {
        token_copy = malloc(strlen(token) + 1);
        if (token_copy != NULL) {
            memcpy(token_copy, token, strlen(token) + 1);
        }
    }
    verify_reply_free(reply);
    reply = NULL;
    CHECK(token_copy != NULL);
    if (token_copy != NULL) {
        EXPECT(verify_heartbeat(client, token_copy, VERIFY_SESSION_CARD, NULL, &reply), VERIFY_OK);
        verify_reply_free(reply);
    }
    EXPECT(bulletin(client), VERIFY_OK);
    verify_client_free(client);

    CHECK(log_calls > 0);
    CHECK(strstr(log_text, "unreachable") != NULL);
    CHECK(strstr(log_text, "Init with") != NULL);
    CHECK(strstr(log_text, app_key) == NULL);
    CHECK(strstr(log_text, card) == NULL);
    CHECK(strstr(log_text, mac) == NULL);
    if (token_copy != NULL) {
        CHECK(strstr(log_text, token_copy) == NULL);
    }
    free(token_copy);
    printf("log:\n%s", log_text);
    return host_finish("failover");
}

/* A client of HOLE_URL (SYNs dropped) with GOOD_URL as its mirror and STATE_DIR as its
 * state folder; the time its first call takes, in ms. */
static long race_once(const char *hole, const char *good, const char *app_id, const char *app_key,
                      const char *state_dir)
{
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    long start = 0, took = 0;
    EXPECT(verify_client_options_new(&options), VERIFY_OK);
    EXPECT(verify_client_options_add_mirror(options, good), VERIFY_OK);
    EXPECT(verify_client_options_set_attempt_delay(options, 300), VERIFY_OK);
    EXPECT(verify_client_options_set_state_folder(options, state_dir), VERIFY_OK);
    EXPECT(verify_client_options_set_log(options, on_log, log_text), VERIFY_OK);
    start = host_now_ms();
    client = client_with(hole, app_id, app_key, options);
    verify_client_options_free(options);
    EXPECT(bulletin(client), VERIFY_OK);
    took = host_now_ms() - start;
    verify_client_free(client);
    return took;
}

static int scenario_race(char **argv)
{
    const char *hole = argv[2], *good = argv[3], *good_port = argv[4], *app_id = argv[5];
    const char *app_key = argv[6], *state_dir = argv[7];
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    char named[128];
    long first = 0, second = 0;

    /* First start: the black-holed primary costs the attempt delay (300 ms), not the 10 s
     * connect timeout; the mirror that won is remembered in the state folder. */
    first = race_once(hole, good, app_id, app_key, state_dir);
    printf("first start: %ld ms\n", first);
    CHECK(first >= 290 && first < 2000);
    CHECK(strstr(log_text, "connected to") != NULL);
    /* Second start: straight to the remembered mirror. */
    second = race_once(hole, good, app_id, app_key, state_dir);
    printf("second start: %ld ms\n", second);
    CHECK(second < 250);

    /* A name DNS does not know, with a fixed address. */
    snprintf(named, sizeof named, "http://race.verify.test:%s", good_port);
    EXPECT(verify_client_options_new(&options), VERIFY_OK);
    EXPECT(verify_client_options_add_address(options, "race.verify.test", "127.0.0.1"), VERIFY_OK);
    EXPECT(verify_client_options_allow_insecure_http(options, 1), VERIFY_OK);
    client = client_with(named, app_id, app_key, options);
    verify_client_options_free(options);
    EXPECT(bulletin(client), VERIFY_OK);
    verify_client_free(client);
    printf("log:\n%s", log_text);
    return host_finish("race");
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "options") == 0) {
        return scenario_options();
    }
    if (argc == 9 && strcmp(argv[1], "tls") == 0) {
        return scenario_tls(argv);
    }
    if (argc == 8 && strcmp(argv[1], "failover") == 0) {
        return scenario_failover(argv);
    }
    if (argc == 8 && strcmp(argv[1], "race") == 0) {
        return scenario_race(argv);
    }
    fprintf(stderr, "usage: see the comment at the top of c_networks.c\n");
    return 2;
}
