/*
 * c_abi_contracts.c: the contracts scenario of the c_abi host (c_abi.c has main() and the
 * list of scenarios): every argument checked as its documentation says, a table of bad
 * values per function, and the message each refusal leaves.
 */

#define VERIFY_HOST_PART /* the check counts live in c_abi.c */
#include "c_abi.h"

/*
 * The contracts table: one row per value of one argument of one function. `arg` NULL with
 * `long_arg` set stands for a string of that many 'a's (a 64-character label, 300 characters).
 * A refusal must leave a message that leads with what is wrong (not the code's generic text),
 * mentions `mentions`, and quotes no more than a short prefix of the argument.
 */
enum contract_call {
    ADDRESS_HOST, /* verify_client_options_add_address(options, arg, "192.0.2.1") */
    ADDRESS_IP, /* verify_client_options_add_address(options, "a.example", arg) */
    KEEPER_IP, /* verify_keeper_options_set_ip(options, arg) */
    REPLY_POINTER, /* verify_reply_str(reply, arg, &text) */
    BASE_URL, /* verify_client_new(arg, "app", "key", &client) */
    ROOT_FILE /* verify_client_options_add_root_file(options, arg) */
};

struct contract {
    enum contract_call call;
    const char *arg;
    size_t long_arg;
    const char *suffix; /* appended to a long argument */
    int32_t expected;
    const char *mentions;
};

static const struct contract contracts_table[] = {
    {ADDRESS_HOST, NULL, 300, "", VERIFY_ERR_INVALID_ARGUMENT, "longer than 253"},
    {ADDRESS_HOST, NULL, 64, ".example", VERIFY_ERR_INVALID_ARGUMENT, "longer than 63"},
    {ADDRESS_HOST, NULL, 63, ".example", VERIFY_OK, NULL},
    {ADDRESS_HOST, "a..example", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "empty label"},
    {ADDRESS_HOST, "-a.example", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "hyphen"},
    {ADDRESS_HOST, "a-.example", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "hyphen"},
    {ADDRESS_HOST, "*.example", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "not a host name"},
    {ADDRESS_HOST, "a\tb.example", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "\\t"},
    {ADDRESS_HOST,
     "a\x01"
     "b.example",
     0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "not a host name"},
    {ADDRESS_HOST, "a%2eexample", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "not a host name"},
    {ADDRESS_HOST, " a.example", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "not a host name"},
    {ADDRESS_HOST, ".", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "empty"},
    {ADDRESS_HOST, "Fixed-1.Example.", 0, NULL, VERIFY_OK, NULL},
    {ADDRESS_HOST, "xn--fiqs8s.example", 0, NULL, VERIFY_OK, NULL},
    {ADDRESS_IP, "[::1", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "not an IPv4 or IPv6 address"},
    {ADDRESS_IP, "::1]", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "not an IPv4 or IPv6 address"},
    {ADDRESS_IP, "[]", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "not an IPv4 or IPv6 address"},
    {ADDRESS_IP, "not-an-ip", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "not-an-ip"},
    {ADDRESS_IP, NULL, 60000, "", VERIFY_ERR_INVALID_ARGUMENT, "60000 bytes"},
    {ADDRESS_IP, "[::1]", 0, NULL, VERIFY_OK, NULL},
    {ADDRESS_IP, "::1", 0, NULL, VERIFY_OK, NULL},
    {KEEPER_IP, "not-an-ip", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "not an IPv4 or IPv6 address"},
    {KEEPER_IP, NULL, 300, "", VERIFY_ERR_INVALID_ARGUMENT, "300 bytes"},
    {KEEPER_IP, "10.1.2.3", 0, NULL, VERIFY_OK, NULL},
    {KEEPER_IP, "2001:db8::1", 0, NULL, VERIFY_OK, NULL},
    {KEEPER_IP, "", 0, NULL, VERIFY_OK, NULL},
    {REPLY_POINTER, "/data/~2", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "~"},
    {REPLY_POINTER, "/data/a~", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "~"},
    {REPLY_POINTER, "/data/a~0b~1c", 0, NULL, VERIFY_ERR_NO_SUCH_FIELD, NULL},
    {REPLY_POINTER, "/data/bulletin", 0, NULL, 0, NULL},
    {REPLY_POINTER, NULL, 65536, "", VERIFY_ERR_INVALID_ARGUMENT, "65536 bytes"},
    {BASE_URL, "http://127.0.0.1:9/api/verify", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "base_url"},
    {ROOT_FILE, NULL, 60000, "", VERIFY_ERR_INVALID_ARGUMENT, "60000 bytes"},
    {ROOT_FILE, "/no/such/roots.pem", 0, NULL, VERIFY_ERR_INVALID_ARGUMENT, "cannot read"},
};

static int32_t run_contract(const struct contract *row, const char *arg,
                            verify_client_options *client_options,
                            verify_keeper_options *keeper_options, const verify_reply *reply)
{
    const char *text = NULL;
    verify_client *client = NULL;
    int32_t code = VERIFY_ERR_PANIC;
    switch (row->call) {
        case ADDRESS_HOST:
            code = verify_client_options_add_address(client_options, arg, "192.0.2.1");
            break;
        case ADDRESS_IP:
            code = verify_client_options_add_address(client_options, "a.example", arg);
            break;
        case KEEPER_IP:
            code = verify_keeper_options_set_ip(keeper_options, arg);
            break;
        case REPLY_POINTER:
            code = verify_reply_str(reply, arg, &text);
            break;
        case BASE_URL:
            code = verify_client_new(arg, "app", "key", &client);
            verify_client_free(client);
            break;
        case ROOT_FILE:
            code = verify_client_options_add_root_file(client_options, arg);
            break;
    }
    return code;
}

/* The message of the last refusal: what is wrong first, short, naming `mentions`. */
static void check_refusal(int32_t code, const char *mentions)
{
    const char *message = verify_last_error_message();
    const char *generic = verify_code_describe(code);
    CHECK_INT(verify_last_error_code(), code);
    CHECK(message[0] != '\0');
    CHECK(strncmp(message, generic, strlen(generic)) != 0);
    CHECK(strlen(message) < 400);
    if (mentions != NULL && !CHECK(strstr(message, mentions) != NULL)) {
        printf("      the message does not mention \"%s\"\n", mentions);
    }
}

int contracts(const char *base_url, const char *app_id, const char *app_key, const char *card,
              const char *file)
{
    verify_client *client = host_client(base_url, app_id, app_key);
    verify_client_options *client_options = NULL;
    verify_keeper_options *keeper_options = NULL;
    verify_keeper *keeper = NULL;
    verify_keeper_status *status = NULL;
    verify_machine_check *check = NULL;
    verify_machine_virtual *report = NULL;
    verify_reply *reply = NULL;
    verify_reply *login = NULL;
    const char *text = NULL;
    char machine[VERIFY_MACHINE_CODE_LEN + 1];
    uint64_t ok = 0, failed = 0;
    int32_t outcome = 0;
    size_t i, count = 0;

    CHECK_INT(verify_client_options_new(&client_options), VERIFY_OK);
    CHECK_INT(verify_keeper_options_new(&keeper_options), VERIFY_OK);
    CHECK_INT(verify_get_bulletin(client, &reply), VERIFY_OK);
    for (i = 0; i < COUNT(contracts_table); i++) {
        const struct contract *row = &contracts_table[i];
        char *built = NULL;
        const char *arg = row->arg;
        int32_t code;
        if (arg == NULL) {
            size_t suffix = strlen(row->suffix);
            built = (char *)malloc(row->long_arg + suffix + 1);
            if (built == NULL) {
                continue;
            }
            memset(built, 'a', row->long_arg);
            memcpy(built + row->long_arg, row->suffix, suffix + 1);
            arg = built;
        }
        code = run_contract(row, arg, client_options, keeper_options, reply);
        if (!CHECK_INT(code, row->expected)) {
            printf("      row %u: \"%.60s\"\n", (unsigned)i, arg);
        }
        if (row->expected < 0 && row->expected != VERIFY_ERR_NO_SUCH_FIELD) {
            check_refusal(row->expected, row->mentions);
        }
        printf("      row %-2u %-24.24s -> %d: %.100s\n", (unsigned)i, arg, (int)code,
               code < 0 ? verify_last_error_message() : "");
        free(built);
    }

    /* Every NULL message names the parameter. */
    CHECK_INT(verify_single_login(client, card, "C-CONTRACTS-MAC", NULL, &login), VERIFY_OK);
    CHECK_INT(verify_keeper_start_from_reply(client, login, keeper_options, &keeper), VERIFY_OK);
    CHECK_INT(verify_keeper_get_status(keeper, &status), VERIFY_OK);
    CHECK_INT(verify_keeper_status_counts(status, NULL, &failed), VERIFY_ERR_INVALID_ARGUMENT);
    check_refusal(VERIFY_ERR_INVALID_ARGUMENT, "ok is NULL");
    CHECK_INT(verify_keeper_status_counts(status, &ok, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    check_refusal(VERIFY_ERR_INVALID_ARGUMENT, "failed is NULL");
    CHECK_INT(verify_keeper_status_counts(NULL, &ok, &failed), VERIFY_ERR_INVALID_ARGUMENT);
    check_refusal(VERIFY_ERR_INVALID_ARGUMENT, "status is NULL");
    CHECK_INT(verify_machine_check_code(NULL, &text), VERIFY_ERR_INVALID_ARGUMENT);
    check_refusal(VERIFY_ERR_INVALID_ARGUMENT, "check is NULL");
    CHECK_INT(verify_machine_check_score(NULL, &outcome), VERIFY_ERR_INVALID_ARGUMENT);
    check_refusal(VERIFY_ERR_INVALID_ARGUMENT, "check is NULL");
    CHECK_INT(verify_machine_virtual_count(NULL, &count), VERIFY_ERR_INVALID_ARGUMENT);
    check_refusal(VERIFY_ERR_INVALID_ARGUMENT, "report is NULL");
    CHECK_INT(verify_machine_virtual_looks_virtual(NULL, &outcome), VERIFY_ERR_INVALID_ARGUMENT);
    check_refusal(VERIFY_ERR_INVALID_ARGUMENT, "report is NULL");
    CHECK_INT(verify_machine_virtual_new(&report), VERIFY_OK);
    CHECK_INT(verify_machine_virtual_count(report, NULL), VERIFY_ERR_INVALID_ARGUMENT);
    check_refusal(VERIFY_ERR_INVALID_ARGUMENT, "out is NULL");
    verify_machine_virtual_free(report);

    /* A state folder that is a regular file: nothing was ever stored there, so a code is
     * issued (not STORE_UNREADABLE), with a note saying why it is not stored. */
    CHECK_INT(verify_machine_check_new("contracts", file, &check), VERIFY_OK);
    CHECK_INT(verify_machine_check_outcome(check, &outcome), 0);
    CHECK_INT(outcome, VERIFY_MACHINE_ISSUED);
    CHECK_INT(verify_machine_check_note(check, &text), 0);
    CHECK(text != NULL && strstr(text, "not a folder") != NULL);
    verify_machine_check_free(check);
    /* Nor can anything be stored in a folder under a file, under /proc, or of a 64 KiB path:
     * ISSUED again (never "a stored code did not open"), the note saying it is not stored. */
    {
        char under_file[600];
        char *long_path = malloc(64 * 1024 + 8);
        const char *nowhere[3];
        size_t at;
        CHECK(long_path != NULL);
        if (long_path != NULL) {
            snprintf(under_file, sizeof under_file, "%s/state", file);
            memcpy(long_path, "/tmp/", 5);
            memset(long_path + 5, 'x', 64 * 1024 - 5);
            long_path[64 * 1024] = '\0';
            nowhere[0] = under_file;
            nowhere[1] = "/proc/verify-state";
            nowhere[2] = long_path;
            for (at = 0; at < 3; at++) {
                CHECK_INT(verify_machine_check_new("contracts", nowhere[at], &check), VERIFY_OK);
                CHECK_INT(verify_machine_check_outcome(check, &outcome), 0);
                CHECK_INT(outcome, VERIFY_MACHINE_ISSUED);
                CHECK_INT(verify_machine_check_note(check, &text), 0);
                CHECK(text != NULL && strstr(text, "not stored") != NULL);
                verify_machine_check_free(check);
            }
            free(long_path);
        }
    }
    /* The last error repeats no caller's value in full, nor the server's echo of one: a
     * 64 KiB variable name (1013, whose message names the variable; the reply keeps it all)
     * and a 64 KiB state folder with offline verdicts on (-18). */
    {
        char *name = malloc(64 * 1024 + 8);
        verify_client *refused = NULL;
        verify_reply *echo = NULL;
        CHECK(name != NULL);
        if (name != NULL) {
            memset(name, 'v', 64 * 1024);
            name[64 * 1024] = '\0';
            CHECK_INT(verify_get_variable(client, name, &echo), 1013);
            CHECK_INT(verify_last_error_code(), 1013);
            CHECK(strlen(verify_last_error_message()) < 400);
            CHECK(strstr(verify_last_error_message(), "vvvv") != NULL);
            CHECK(echo != NULL && strlen(verify_reply_message(echo)) > 64 * 1024);
            verify_reply_free(echo);
            memcpy(name, "/tmp/", 5);
            CHECK_INT(verify_client_options_set_state_folder(client_options, name), VERIFY_OK);
            CHECK_INT(verify_client_options_set_offline_grace(client_options, 3600), VERIFY_OK);
            CHECK_INT(
                verify_client_new_with_options(base_url, app_id, app_key, client_options, &refused),
                VERIFY_ERR_STATE_FOLDER);
            check_refusal(VERIFY_ERR_STATE_FOLDER, "state folder");
            CHECK(refused == NULL);
            CHECK_INT(verify_client_options_set_offline_grace(client_options, 0), VERIFY_OK);
            free(name);
        }
    }
    /* v1 ignores the state folder, as documented: a file, or bytes that are not UTF-8. */
    CHECK_INT(verify_machine_code_ex("contracts", VERIFY_MACHINE_V1, file, machine, sizeof machine),
              VERIFY_OK);
    CHECK_INT(
        verify_machine_code_ex("contracts", VERIFY_MACHINE_V1, "\xff", machine, sizeof machine),
        VERIFY_OK);

    verify_keeper_status_free(status);
    verify_keeper_free(keeper);
    verify_reply_free(login);
    verify_reply_free(reply);
    verify_keeper_options_free(keeper_options);
    verify_client_options_free(client_options);
    verify_client_free(client);
    return host_finish("contracts");
}
