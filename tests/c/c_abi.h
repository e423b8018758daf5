/*
 * c_abi.h: what the files of the c_abi host share. c_abi.c holds main(), the misuse table and
 * most scenarios; c_abi_contracts.c the contracts scenario. Both are compiled into one
 * program (tests/common/host/compile.rs: a host's parts are the files named after it).
 */

#ifndef VERIFY_TEST_C_ABI_H
#define VERIFY_TEST_C_ABI_H

#include "host.h"

/* c_abi contracts BASE_URL APP_ID APP_KEY CARD FILE (c_abi_contracts.c). */
int contracts(const char *base_url, const char *app_id, const char *app_key, const char *card,
              const char *file);

#endif /* VERIFY_TEST_C_ABI_H */
