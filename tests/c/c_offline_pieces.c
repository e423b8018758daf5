/*
 * c_offline_pieces.c: one start of a program with offline verdicts on, for the table of moves
 * against the offline store (tests/c/offline.rs on Linux, tests/platforms/windows/offline.rs
 * under Wine, x64 and x86). Plain C99 and verify.h only, so the same file runs everywhere.
 *
 *   c_offline_pieces URL APP_ID APP_KEY STATE_FOLDER GRACE_SECONDS card CARD
 *   c_offline_pieces URL APP_ID APP_KEY STATE_FOLDER GRACE_SECONDS account USER PASSWORD
 *
 * Logs in once (a card login, or an account's password login), machine code "M", and prints
 *   code N
 *   message TEXT       (the reply's message, else the last error's)
 * then exits 0; 2 on bad arguments or when the client cannot be made.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

static int usage(void)
{
    fprintf(stderr, "usage: c_offline_pieces URL APP_ID APP_KEY STATE_FOLDER GRACE_SECONDS "
                    "card CARD | account USER PASSWORD\n");
    return 2;
}

int main(int argc, char **argv)
{
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    const char *message = NULL;
    int32_t code;
    unsigned long grace;

    if (argc < 8) {
        return usage();
    }
    grace = strtoul(argv[5], NULL, 10);
    if (verify_client_options_new(&options) != VERIFY_OK ||
        verify_client_options_set_state_folder(options, argv[4]) != VERIFY_OK ||
        verify_client_options_set_offline_grace(options, (uint32_t)grace) != VERIFY_OK ||
        verify_client_options_set_timeouts(options, 2000, 5000) != VERIFY_OK) {
        fprintf(stderr, "options: %s\n", verify_last_error_message());
        verify_client_options_free(options);
        return 2;
    }
    code = verify_client_new_with_options(argv[1], argv[2], argv[3], options, &client);
    verify_client_options_free(options);
    if (code != VERIFY_OK) {
        fprintf(stderr, "client: %d %s\n", (int)code, verify_last_error_message());
        return 2;
    }
    if (strcmp(argv[6], "card") == 0) {
        code = verify_single_login(client, argv[7], "M", NULL, &reply);
    } else if (strcmp(argv[6], "account") == 0 && argc >= 9) {
        code = verify_user_login(client, argv[7], argv[8], "M", &reply);
    } else {
        verify_client_free(client);
        return usage();
    }
    message = reply != NULL ? verify_reply_message(reply) : verify_last_error_message();
    printf("code %d\n", (int)code);
    printf("message %s\n", message != NULL ? message : "");
    fflush(stdout);
    verify_reply_free(reply);
    verify_client_free(client);
    return 0;
}
