/*
 * c_keeper.h: what the files of the c_keeper host share. c_keeper.c holds main() and the
 * keeper, social, machine and misuse scenarios; c_keeper_offline.c the offline-first ones.
 * Both are compiled into one program (tests/common/host/compile.rs: a host's parts are the
 * files named after it).
 */

#ifndef VERIFY_TEST_C_KEEPER_H
#define VERIFY_TEST_C_KEEPER_H

#include <pthread.h>

#include "host.h"

/* How long a host waits for something the sandbox does, in ms (times the slack). */
#define PATIENCE_MS 20000L

/* What the C callback records, guarded by a mutex: it runs on the keeper's event thread. */
#define MAX_EVENTS 64
struct recorded {
    int32_t kind;
    int32_t code;
    int64_t grace_end;
    char detail[256]; /* text, else remark, else "" */
    int had_message; /* message was not NULL */
};
struct recorder {
    pthread_mutex_t lock;
    struct recorded events[MAX_EVENTS];
    int count;
    pthread_t starter; /* the thread that started the keeper */
    int on_starter; /* a callback ran on it */
};

/* The keeper callback that records each event into the `struct recorder` of user_data. */
void VERIFY_CALL record(void *user_data, const verify_event *event);

/* How many events of `kind` were recorded; the last one is copied to `last`. */
int count_kind(struct recorder *recorder, int32_t kind, struct recorded *last);

/* Waits until an event of `kind` was recorded; returns whether one was. */
int wait_kind(struct recorder *recorder, int32_t kind);

/* The offline-first scenarios (c_keeper_offline.c); the arguments as c_keeper.c lists them. */
int offline(const char *base_url, const char *app_id, const char *app_key, const char *card,
            const char *state_dir);
int writer(const char *base_url, const char *app_id, const char *app_key, const char *card,
           const char *state_dir, int n);
int reader(const char *base_url, const char *app_id, const char *app_key, const char *card,
           const char *state_dir);
int password(const char *base_url, const char *app_id, const char *app_key, const char *user,
             const char *pass, const char *state_dir);
int stranger(const char *base_url, const char *app_id, const char *app_key, const char *card,
             const char *state_dir);

#endif /* VERIFY_TEST_C_KEEPER_H */
