/*
 * win_tls.c: an https login on a Windows whose system root store lacks today's roots, as on a
 * Windows 7 that never updated them (run by tests/platforms/windows/tls.rs under Wine, x64
 * and x86, in a prefix whose root store holds no certificate of the host's).
 *
 *   win_tls HTTPS_URL APP_ID APP_KEY CARD CA_FILE
 *
 * Prints "system root store: N certificates, test CA: yes|no" (CertOpenSystemStoreW ROOT),
 * then one line "case NAME CODE" per login of CARD over HTTPS_URL, whose certificate is
 * signed by the CA of CA_FILE (a file in the program's folder):
 *
 *   default_and_ca  the default trust (Mozilla's roots, built into the DLL) and the CA of
 *                   CA_FILE added: 200, the system store never asked
 *   default         the default trust alone: VERIFY_ERR_TLS (the CA is nobody's root)
 *   system          the system store alone (VERIFY_TRUST_SYSTEM): VERIFY_ERR_TLS, as the
 *                   store lacks the CA (the control: that store is what the others avoid)
 *
 * The test checks the codes.
 */

#include <windows.h>

#include <wincrypt.h>

#include "win_host.h"

/* The login of `card` with a client of `trust` flags, and `ca_file` added when not NULL. */
static int32_t login(const char *url, const char *app_id, const char *app_key, const char *card,
                     uint32_t trust, const char *ca_file)
{
    verify_client_options *options = NULL;
    verify_client *client = NULL;
    verify_reply *reply = NULL;
    char mac[VERIFY_MACHINE_CODE_LEN + 1];
    int32_t code;
    CHECK_INT(verify_client_options_new(&options), VERIFY_OK);
    CHECK_INT(verify_client_options_set_trust(options, trust), VERIFY_OK);
    if (ca_file != NULL) {
        CHECK_INT(verify_client_options_add_root_file(options, ca_file), VERIFY_OK);
    }
    CHECK_INT(verify_client_options_set_timeouts(options, 10000, 30000), VERIFY_OK);
    CHECK_INT(verify_client_new_with_options(url, app_id, app_key, options, &client), VERIFY_OK);
    verify_client_options_free(options);
    CHECK_INT(verify_machine_code("win_tls", mac, sizeof mac), VERIFY_OK);
    code = verify_single_login(client, card, mac, NULL, &reply);
    if (code != VERIFY_OK) {
        printf("      %s\n", verify_last_error_message());
    }
    verify_reply_free(reply);
    verify_client_free(client);
    return code;
}

int main(int argc, char **argv)
{
    HCERTSTORE store;
    PCCERT_CONTEXT cert = NULL;
    long count = 0;
    int has_ca = 0;
    if (argc != 6) {
        printf("usage: win_tls HTTPS_URL APP_ID APP_KEY CARD CA_FILE\n");
        return 2;
    }
    store = CertOpenSystemStoreW(0, L"ROOT");
    CHECK(store != NULL);
    while (store != NULL && (cert = CertEnumCertificatesInStore(store, cert)) != NULL) {
        char name[256];
        count++;
        if (CertGetNameStringA(cert, CERT_NAME_SIMPLE_DISPLAY_TYPE, 0, NULL, name, sizeof name) >
                1 &&
            strcmp(name, "verify tests CA") == 0) {
            has_ca = 1;
        }
    }
    if (store != NULL) {
        CertCloseStore(store, 0);
    }
    printf("system root store: %ld certificates, test CA: %s\n", count, has_ca ? "yes" : "no");
    printf("case default_and_ca %d\n",
           (int)login(argv[1], argv[2], argv[3], argv[4], VERIFY_TRUST_MOZILLA, argv[5]));
    printf("case default %d\n",
           (int)login(argv[1], argv[2], argv[3], argv[4], VERIFY_TRUST_MOZILLA, NULL));
    printf("case system %d\n",
           (int)login(argv[1], argv[2], argv[3], argv[4], VERIFY_TRUST_SYSTEM, NULL));
    return host_result();
}
