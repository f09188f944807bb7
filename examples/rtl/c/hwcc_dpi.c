/*
 * hwcc_dpi.c: the DPI-C bridge between a SystemVerilog testbench and hwcc's
 * C ABI (capi/hwcc.h). sv/hwcc_dpi.sv declares these functions for the
 * SystemVerilog side; README.md shows how to build and link them.
 *
 * A testbench creates a golden part by algorithm and part name with the
 * same settings its RTL was generated from, reports each event the RTL
 * sees, and reads the part's registers by name to compare them with the
 * RTL's. The bridge keeps the part's register snapshot after every event,
 * and, when asked, writes the events as an hwcc trace (format 2,
 * docs/trace.md) that `hwcc replay` and package trace read, so that any
 * mismatch can be replayed without the simulator.
 *
 * Compile as C99 (or C++): cc -std=c99 -I capi -c hwcc_dpi.c. Link with
 * the C archive of hwcc (capi/libhwcc, or examples/rtl/golden, which adds
 * the hwccrtl_* functions below) and -lpthread -ldl.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwcc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exported by examples/rtl/golden (Go): not part of hwcc.h. */
extern uint64_t hwccrtl_recip(uint64_t n, uint64_t a, uint64_t *mant, uint32_t *shift);
extern int64_t hwccrtl_ts_delta(uint32_t older, uint32_t newer);
extern int64_t hwccrtl_tx_delta(uint32_t older, uint32_t newer);

enum { REG_CAP = 256, ACT_CAP = 64, ERR_LEN = 512 };

/* One golden part: the handle SystemVerilog holds (a chandle). */
typedef struct golden {
    hwcc_part *part;
    FILE *trace;              /* NULL: no trace */
    long events;              /* events reported so far */
    hwcc_register regs[REG_CAP];
    size_t nregs;
    hwcc_action acts[ACT_CAP];
    size_t nacts;
    size_t hint;              /* where the next name lookup starts */
    hwcc_packet tel;          /* the stack the next hwcc_dpi_ack carries */
    int tel_hops;
    char err[ERR_LEN];
} golden;

static void snapshot(golden *g) {
    size_t n = 0;
    if (hwcc_registers(g->part, g->regs, REG_CAP, &n) == HWCC_E_TRUNCATED) {
        n = REG_CAP;
    }
    g->nregs = n;
}

/* Writes s as a JSON string (the settings and names are plain ASCII). */
static void json_str(FILE *f, const char *s, size_t n) {
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '"' || c == '\\') {
            fputc('\\', f);
        }
        fputc(c, f);
    }
    fputc('"', f);
}

/* Writes "name=value, name=value" as JSON object members. */
static void json_settings(FILE *f, const char *settings) {
    const char *p = settings;
    int first = 1;
    while (p && *p) {
        while (*p == ' ' || *p == ',') {
            p++;
        }
        if (!*p) {
            break;
        }
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = (const char *)memchr(p, '=', len);
        if (eq) {
            size_t vlen = len - (size_t)(eq + 1 - p);
            while (vlen > 0 && eq[vlen] == ' ') {
                vlen--;
            }
            if (!first) {
                fputc(',', f);
            }
            json_str(f, p, (size_t)(eq - p));
            fputc(':', f);
            json_str(f, eq + 1, vlen);
            first = 0;
        }
        p += len;
    }
}

static void hex(FILE *f, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%02x", b[i]);
    }
}

static const char *role_name(int role) {
    switch (role) {
    case HWCC_ROLE_CP: return "CP";
    case HWCC_ROLE_RP: return "RP";
    case HWCC_ROLE_NP: return "NP";
    case HWCC_ROLE_SW: return "SW";
    }
    return "?";
}

/*
 * hwcc_dpi_new builds part `part` of `algorithm` with `settings` in an
 * environment of rate env_rate bit/s (0: unknown), and, when trace_path is
 * not "", starts a trace there. It returns NULL after printing hwcc's
 * message when the part cannot be built.
 */
void *hwcc_dpi_new(const char *algorithm, const char *part, const char *settings,
                   int64_t env_rate, const char *trace_path) {
    if (hwcc_abi_version() != HWCC_ABI_VERSION) {
        fprintf(stderr, "hwcc_dpi: library ABI %d, header %d\n", hwcc_abi_version(), HWCC_ABI_VERSION);
        return NULL;
    }
    golden *g = (golden *)calloc(1, sizeof *g);
    if (!g) {
        return NULL;
    }
    hwcc_env env;
    memset(&env, 0, sizeof env);
    env.rate = env_rate;
    if (hwcc_part_new(algorithm, part, settings, &env, &g->part, g->err, sizeof g->err) != HWCC_OK) {
        fprintf(stderr, "hwcc_dpi: %s %s: %s\n", algorithm, part, g->err);
        free(g);
        return NULL;
    }
    if (trace_path && *trace_path) {
        g->trace = fopen(trace_path, "w");
        if (!g->trace) {
            perror(trace_path);
            hwcc_part_free(g->part);
            free(g);
            return NULL;
        }
        fprintf(g->trace, "{\"hwcc_trace\":2,\"version\":\"%s\",\"algorithm\":", hwcc_version());
        json_str(g->trace, algorithm, strlen(algorithm));
        fputs(",\"part\":", g->trace);
        json_str(g->trace, part, strlen(part));
        fprintf(g->trace, ",\"role\":\"%s\",\"settings\":{", role_name(hwcc_part_role(g->part)));
        json_settings(g->trace, settings);
        fputs("},\"env\":{", g->trace);
        if (env_rate > 0) {
            fprintf(g->trace, "\"rate\":%lld", (long long)env_rate);
        }
        fputs("}}\n", g->trace);
        fflush(g->trace);
    }
    snapshot(g);
    return g;
}

/* hwcc_dpi_free closes the trace and frees the part. */
void hwcc_dpi_free(void *h) {
    golden *g = (golden *)h;
    if (!g) {
        return;
    }
    if (g->trace) {
        fclose(g->trace);
    }
    hwcc_part_free(g->part);
    free(g);
}

/* done finishes an event: the trace line's end, the snapshot. */
static int done(golden *g, int rc) {
    g->events++;
    if (g->trace) {
        fputs("}\n", g->trace);
        fflush(g->trace); /* a failing bench stops at once: keep every line */
    }
    if (rc != HWCC_OK) {
        return rc;
    }
    snapshot(g);
    return rc;
}

static int queue_event(golden *g, const char *ev, int64_t now, uint32_t flow, int64_t size,
                       int64_t qlen, int64_t rate) {
    hwcc_packet pkt;
    hwcc_queue q;
    memset(&pkt, 0, sizeof pkt);
    memset(&q, 0, sizeof q);
    pkt.flow = flow;
    pkt.size = size;
    q.len = qlen;
    q.rate = rate;
    if (g->trace) {
        fprintf(g->trace,
                "{\"t\":%lld,\"ev\":\"%s\",\"packet\":{\"flow\":%u,\"size\":%lld},\"queue\":{\"len\":%lld,\"rate\":%lld}",
                (long long)now, ev, flow, (long long)size, (long long)qlen, (long long)rate);
    }
    int rc = ev[0] == 'e'
                 ? hwcc_enqueue(g->part, now, 0, &pkt, &q, g->acts, ACT_CAP, &g->nacts, g->err, sizeof g->err)
                 : hwcc_dequeue(g->part, now, 0, &pkt, &q, g->acts, ACT_CAP, &g->nacts, g->err, sizeof g->err);
    return done(g, rc);
}

/* hwcc_dpi_enqueue: a packet of flow, size bytes, joined the queue, which
 * now holds qlen bytes on a port of rate bit/s. 0 or an HWCC_E_* code. */
int hwcc_dpi_enqueue(void *h, int64_t now, int flow, int64_t size, int64_t qlen, int64_t rate) {
    return queue_event((golden *)h, "enqueue", now, (uint32_t)flow, size, qlen, rate);
}

/* hwcc_dpi_dequeue: the packet at the head left; the queue holds qlen. */
int hwcc_dpi_dequeue(void *h, int64_t now, int flow, int64_t size, int64_t qlen, int64_t rate) {
    return queue_event((golden *)h, "dequeue", now, (uint32_t)flow, size, qlen, rate);
}

/* hwcc_dpi_timer: the part's timer at now. */
int hwcc_dpi_timer(void *h, int64_t now) {
    golden *g = (golden *)h;
    if (g->trace) {
        fprintf(g->trace, "{\"t\":%lld,\"ev\":\"timer\"", (long long)now);
    }
    return done(g, hwcc_timer(g->part, now, g->acts, ACT_CAP, &g->nacts, g->err, sizeof g->err));
}

/* hwcc_dpi_tel_clear empties the INT stack the next ACK carries. */
void hwcc_dpi_tel_clear(void *h) {
    golden *g = (golden *)h;
    g->tel_hops = 0;
}

/* hwcc_dpi_tel_hop appends one INT record (HPCC's Figure 7 fields) to it;
 * 0, or -1 when the stack is full. */
int hwcc_dpi_tel_hop(void *h, int speed, int ts, int tx_bytes, int qlen) {
    golden *g = (golden *)h;
    if (2 + 8 * (g->tel_hops + 1) > HWCC_TEL_CAP || g->tel_hops >= 15) {
        return -1;
    }
    uint64_t rec = (uint64_t)(speed & 0xf) << 60 | (uint64_t)(ts & 0xffffff) << 36 |
                   (uint64_t)(tx_bytes & 0xfffff) << 16 | (uint64_t)(qlen & 0xffff);
    uint8_t *b = g->tel.tel + 2 + 8 * g->tel_hops;
    for (int i = 0; i < 8; i++) {
        b[i] = (uint8_t)(rec >> (56 - 8 * i));
    }
    g->tel_hops++;
    return 0;
}

/* hwcc_dpi_ack: an ACK of every byte below seq, sent when the flow's next
 * byte was snd_nxt, echoing the stack built with hwcc_dpi_tel_hop under
 * path_id (HPCC's INT header: nHop << 12 | pathID, then the records). */
int hwcc_dpi_ack(void *h, int64_t now, int64_t seq, int64_t snd_nxt, int path_id) {
    golden *g = (golden *)h;
    hwcc_feedback_t f;
    memset(&f, 0, sizeof f);
    f.kind = HWCC_FB_ACK;
    f.flow = 1;
    f.seq = (uint64_t)seq;
    f.snd_nxt = (uint64_t)snd_nxt;
    uint16_t prefix = (uint16_t)((g->tel_hops & 0xf) << 12 | (path_id & 0xfff));
    f.tel[0] = (uint8_t)(prefix >> 8);
    f.tel[1] = (uint8_t)prefix;
    memcpy(f.tel + 2, g->tel.tel + 2, (size_t)(8 * g->tel_hops));
    f.tel_len = (uint8_t)(2 + 8 * g->tel_hops);
    if (g->trace) {
        fprintf(g->trace, "{\"t\":%lld,\"ev\":\"feedback\",\"feedback\":{\"kind\":\"ack\",\"flow\":1,\"seq\":%llu,\"snd_nxt\":%llu,\"tel\":\"",
                (long long)now, (unsigned long long)f.seq, (unsigned long long)f.snd_nxt);
        hex(g->trace, f.tel, f.tel_len);
        fputs("\"}", g->trace);
    }
    return done(g, hwcc_feedback(g->part, now, &f, g->acts, ACT_CAP, &g->nacts, g->err, sizeof g->err));
}

/* hwcc_dpi_reg writes the register called name, as of the last event, to
 * *value (its bits; a signed register sign-extended) and returns 1, or
 * returns 0 when the part has no register of that name. */
int hwcc_dpi_reg(void *h, const char *name, int64_t *value) {
    golden *g = (golden *)h;
    /* A bench reads the registers in the snapshot's order, mostly: start
     * where the last lookup ended, and wrap around. */
    for (size_t k = 0; k < g->nregs; k++) {
        size_t i = (g->hint + k) % g->nregs;
        if (strcmp(g->regs[i].name, name) == 0) {
            uint64_t v = g->regs[i].value;
            unsigned w = g->regs[i].width;
            if (g->regs[i].is_signed && w < 64 && (v >> (w - 1) & 1)) {
                v |= ~(uint64_t)0 << w;
            }
            *value = (int64_t)v;
            g->hint = i + 1;
            return 1;
        }
    }
    return 0;
}

/* hwcc_dpi_deadline returns the part's next deadline, ps. */
int64_t hwcc_dpi_deadline(void *h) { return hwcc_next_deadline(((golden *)h)->part); }

/* hwcc_dpi_error returns the message of the last refused event. */
const char *hwcc_dpi_error(void *h) { return ((golden *)h)->err; }

/* hwcc_dpi_events returns the number of events reported (the trace's
 * event n is the n-th). */
int hwcc_dpi_events(void *h) { return (int)((golden *)h)->events; }

/* hwcc_dpi_recip: the table's reciprocal of n, 1/n ~= *mant / 2^*shift
 * (hwtables.Table.Lookup), and a/n by it (DivFast). */
int64_t hwcc_dpi_recip(int64_t n, int64_t a, int64_t *mant, int *shift) {
    uint64_t m;
    uint32_t s;
    uint64_t q = hwccrtl_recip((uint64_t)n, (uint64_t)a, &m, &s);
    *mant = (int64_t)m;
    *shift = (int)s;
    return (int64_t)q;
}

/* hwcc_dpi_ts_delta, hwcc_dpi_tx_delta: inttel's wrap-safe deltas. */
int64_t hwcc_dpi_ts_delta(int older, int newer) { return hwccrtl_ts_delta((uint32_t)older, (uint32_t)newer); }
int64_t hwcc_dpi_tx_delta(int older, int newer) { return hwccrtl_tx_delta((uint32_t)older, (uint32_t)newer); }

#ifdef __cplusplus
}
#endif
