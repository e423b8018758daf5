/*
 * c_keeper.h: what the files of the c_keeper host share: the patience, and the recorder of
 * keeper events (static inline, as in host.h, so that c_keeper_offline.c needs nothing of
 * c_keeper.c). c_keeper.c holds main() and the keeper, social, machine and misuse scenarios;
 * c_keeper_offline.c the offline-first ones. Both are compiled into one program
 * (tests/common/host/compile.rs: a host's parts are the files named after it).
 */

#ifndef VERIFY_TEST_C_KEEPER_H
#define VERIFY_TEST_C_KEEPER_H

#include <pthread.h>
#include <time.h>

#include "host.h"

/* How long a host waits for something the sandbox does, in ms (times the slack). */
#define PATIENCE_MS 20000L

/* Sleeps `ms` milliseconds (between polls of a state, each poll with a deadline). */
static inline void sleep_ms(long ms)
{
    struct timespec pause;
    pause.tv_sec = ms / 1000;
    pause.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&pause, NULL);
}

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
static inline void VERIFY_CALL record(void *user_data, const verify_event *event)
{
    struct recorder *recorder = (struct recorder *)user_data;
    const char *detail = event->text != NULL ? event->text : event->remark;
    pthread_mutex_lock(&recorder->lock);
    if (pthread_equal(pthread_self(), recorder->starter)) {
        recorder->on_starter = 1;
    }
    if (recorder->count < MAX_EVENTS) {
        struct recorded *slot = &recorder->events[recorder->count++];
        slot->kind = event->kind;
        slot->code = event->code;
        slot->grace_end = event->grace_end;
        slot->had_message = event->message != NULL;
        strncpy(slot->detail, detail != NULL ? detail : "", sizeof slot->detail - 1);
        slot->detail[sizeof slot->detail - 1] = '\0';
    }
    pthread_mutex_unlock(&recorder->lock);
}

/* How many events of `kind` were recorded; the last one is copied to `last`. */
static inline int count_kind(struct recorder *recorder, int32_t kind, struct recorded *last)
{
    int i, n = 0;
    pthread_mutex_lock(&recorder->lock);
    for (i = 0; i < recorder->count; i++) {
        if (recorder->events[i].kind == kind) {
            n++;
            if (last != NULL) {
                *last = recorder->events[i];
            }
        }
    }
    pthread_mutex_unlock(&recorder->lock);
    return n;
}

/* Waits until an event of `kind` was recorded; returns whether one was. */
static inline int wait_kind(struct recorder *recorder, int32_t kind)
{
    long deadline = host_now_ms() + PATIENCE_MS * host_slack();
    while (count_kind(recorder, kind, NULL) == 0) {
        if (host_now_ms() > deadline) {
            return 0;
        }
        sleep_ms(10);
    }
    return 1;
}

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
