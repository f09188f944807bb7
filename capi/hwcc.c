/*
 * hwcc.c: the public functions of hwcc.h, with its exact prototypes. Each
 * turns the opaque handle into the integer the Go side keys its table by
 * and calls the Go function capi.go exports (hwccgo_*). Keeping this layer
 * in C lets the header use const and opaque pointer types cgo cannot
 * export, and keeps every pointer-integer conversion out of Go.
 */
#include <stdint.h>
#include <string.h>

#include "_cgo_export.h"
#include "hwcc.h"

/* Handles are gen << 32 | index + 1 in a pointer's bits. */
typedef char hwcc_needs_64_bit_pointers[sizeof(void *) >= 8 ? 1 : -1];

static uint64_t handle(const hwcc_part *p) { return (uint64_t)(uintptr_t)p; }

int hwcc_abi_version(void) { return hwccgo_abi_version(); }

const char *hwcc_version(void) { return hwccgo_version(); }

const char *hwcc_strerror(int code) {
    switch (code) {
    case HWCC_OK: return "ok";
    case HWCC_E_HANDLE: return "invalid or freed part handle";
    case HWCC_E_ARG: return "invalid argument";
    case HWCC_E_ROLE: return "event not of the part's role";
    case HWCC_E_CONFIG: return "invalid configuration";
    case HWCC_E_TIME_ORDER: return "event out of time order";
    case HWCC_E_EVENT: return "event refused";
    case HWCC_E_ACTIONS_FULL: return "actions do not fit";
    case HWCC_E_DECODE: return "malformed bytes";
    case HWCC_E_BUSY: return "part in use by another thread";
    case HWCC_E_TRUNCATED: return "output truncated";
    case HWCC_E_INTERNAL: return "internal error";
    }
    return "unknown error code";
}

int hwcc_part_new(const char *algorithm, const char *part, const char *settings,
                  const hwcc_env *env, hwcc_part **out, char *err, size_t errlen) {
    uint64_t h = 0;
    int rc = hwccgo_part_new((char *)algorithm, (char *)part, (char *)settings,
                             (hwcc_env *)env, out ? &h : NULL, err, errlen);
    if (out) {
        *out = rc == HWCC_OK ? (hwcc_part *)(uintptr_t)h : NULL;
    }
    return rc;
}

void hwcc_part_free(hwcc_part *p) {
    if (p) {
        hwccgo_part_free(handle(p));
    }
}

int hwcc_part_role(hwcc_part *p) { return hwccgo_part_role(handle(p)); }

size_t hwcc_live_parts(void) { return hwccgo_live_parts(); }

int64_t hwcc_next_deadline(hwcc_part *p) { return hwccgo_next_deadline(handle(p)); }

int hwcc_limits(hwcc_part *p, hwcc_limits_t *out) { return hwccgo_limits(handle(p), out); }

int hwcc_registers(hwcc_part *p, hwcc_register *regs, size_t cap, size_t *n) {
    return hwccgo_registers(handle(p), regs, cap, n);
}

/* The event numbers of table.go. */
enum {
    EV_SENT = 1,
    EV_FEEDBACK,
    EV_TIMER,
    EV_ENQUEUE,
    EV_DEQUEUE,
    EV_RECEIVE,
    EV_ARRIVE,
    EV_PAUSE,
    EV_MESSAGE
};

int hwcc_sent(hwcc_part *p, int64_t now_ps, hwcc_packet *pkt,
              hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen) {
    return hwccgo_event(handle(p), EV_SENT, now_ps, 0, 0, 0, pkt, NULL, NULL, acts, cap, n, err, errlen);
}

int hwcc_feedback(hwcc_part *p, int64_t now_ps, const hwcc_feedback_t *f,
                  hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen) {
    return hwccgo_event(handle(p), EV_FEEDBACK, now_ps, 0, 0, 0, NULL, NULL, (hwcc_feedback_t *)f,
                        acts, cap, n, err, errlen);
}

int hwcc_timer(hwcc_part *p, int64_t now_ps,
               hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen) {
    return hwccgo_event(handle(p), EV_TIMER, now_ps, 0, 0, 0, NULL, NULL, NULL, acts, cap, n, err, errlen);
}

int hwcc_enqueue(hwcc_part *p, int64_t now_ps, int32_t out, hwcc_packet *pkt,
                 const hwcc_queue *q,
                 hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen) {
    return hwccgo_event(handle(p), EV_ENQUEUE, now_ps, out, 0, 0, pkt, (hwcc_queue *)q, NULL,
                        acts, cap, n, err, errlen);
}

int hwcc_dequeue(hwcc_part *p, int64_t now_ps, int32_t out, hwcc_packet *pkt,
                 const hwcc_queue *q,
                 hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen) {
    return hwccgo_event(handle(p), EV_DEQUEUE, now_ps, out, 0, 0, pkt, (hwcc_queue *)q, NULL,
                        acts, cap, n, err, errlen);
}

int hwcc_receive(hwcc_part *p, int64_t now_ps, const hwcc_packet *pkt,
                 hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen) {
    return hwccgo_event(handle(p), EV_RECEIVE, now_ps, 0, 0, 0, (hwcc_packet *)pkt, NULL, NULL,
                        acts, cap, n, err, errlen);
}

int hwcc_arrive(hwcc_part *p, int64_t now_ps, int32_t in, const hwcc_packet *pkt,
                hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen) {
    return hwccgo_event(handle(p), EV_ARRIVE, now_ps, in, 0, 0, (hwcc_packet *)pkt, NULL, NULL,
                        acts, cap, n, err, errlen);
}

int hwcc_pause(hwcc_part *p, int64_t now_ps, int32_t out, uint8_t prio, int paused,
               hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen) {
    return hwccgo_event(handle(p), EV_PAUSE, now_ps, out, prio, paused, NULL, NULL, NULL,
                        acts, cap, n, err, errlen);
}

int hwcc_message(hwcc_part *p, int64_t now_ps, int32_t in, const hwcc_feedback_t *f,
                 hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen) {
    return hwccgo_event(handle(p), EV_MESSAGE, now_ps, in, 0, 0, NULL, NULL, (hwcc_feedback_t *)f,
                        acts, cap, n, err, errlen);
}
