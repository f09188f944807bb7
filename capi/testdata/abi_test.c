/*
 * abi_test.c drives hwcc through its C ABI with a fixed sequence of events
 * and prints every output as lines; capi/abi_test.go runs it and compares
 * each line with the same events driven through the Go API. Any change to
 * the sequence here must be made in abi_test.go's expected() too.
 *
 * Usage: abi_test          the event sequence
 *        abi_test leak N   create and free N parts, print the live count
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwcc.h"

#define CAP 16
#define ERRLEN 256

static hwcc_action acts[CAP];
static char err[ERRLEN];
static size_t n;

/* print_tel prints a telemetry stack as " tel=LEN:HEX" (its bytes up to
 * HWCC_TEL_CAP). */
static void print_tel(uint8_t len, const uint8_t *tel) {
    printf(" tel=%u:", (unsigned)len);
    for (unsigned i = 0; i < len && i < HWCC_TEL_CAP; i++) printf("%02x", (unsigned)tel[i]);
}

static void print_feedback(const hwcc_feedback_t *f) {
    printf("  fb kind=%u flow=%" PRIu32 " from=%" PRIu64 " seq=%" PRIu64 " acked=%" PRId64
           " snd_nxt=%" PRIu64 " ece=%u data=",
           (unsigned)f->kind, f->flow, f->from, f->seq, f->acked, f->snd_nxt, (unsigned)f->ece);
    for (int i = 0; i < HWCC_DATA_LEN; i++) printf("%02x", (unsigned)f->data[i]);
    print_tel(f->tel_len, f->tel);
    printf("\n");
}

/* report prints an event's result: its code, then the error or the
 * actions. */
static void report(const char *label, int rc) {
    if (rc != HWCC_OK) {
        printf("%s rc=%d\n  err %s\n", label, rc, err);
        return;
    }
    printf("%s rc=0 n=%zu\n", label, n);
    for (size_t i = 0; i < n; i++) {
        const hwcc_action *a = &acts[i];
        printf("  act %zu kind=%u to=%u prio=%u switch=%u node=%" PRIu32 " port=%u bytes=%" PRId64 "\n", i,
               (unsigned)a->kind, (unsigned)a->to, (unsigned)a->prio, (unsigned)a->switch_id, a->node,
               (unsigned)a->port, a->bytes);
        if (a->kind == HWCC_ACT_FEEDBACK) print_feedback(&a->feedback);
    }
}

static void print_packet(const hwcc_packet *p) {
    printf("  pkt hdr=");
    for (int i = 0; i < HWCC_HDR_LEN; i++) printf("%02x", (unsigned)p->hdr[i]);
    print_tel(p->tel_len, p->tel);
    printf("\n");
}

/* state prints what a caller reads after an event: the deadline, an RP's
 * limits, the registers. */
static void state(hwcc_part *p) {
    printf("  deadline=%" PRId64 "\n", hwcc_next_deadline(p));
    if (hwcc_part_role(p) == HWCC_ROLE_RP) {
        hwcc_limits_t l;
        int rc = hwcc_limits(p, &l);
        printf("  limits rc=%d rate=%" PRId64 " window=%" PRId64 " credited=%u credit=%" PRId64 "\n", rc, l.rate,
               l.window, (unsigned)l.credited, l.credit);
    }
    hwcc_register regs[128];
    size_t k = 0;
    int rc = hwcc_registers(p, regs, 128, &k);
    printf("  regs rc=%d n=%zu\n", rc, k);
    for (size_t i = 0; i < k && i < 128; i++) {
        printf("  reg %s %u %u %" PRIu64 "\n", regs[i].name, (unsigned)regs[i].width, (unsigned)regs[i].is_signed,
               regs[i].value);
    }
}

static hwcc_part *make(const char *label, const char *algo, const char *part, const char *settings,
                       const hwcc_env *env) {
    hwcc_part *p = NULL;
    int rc = hwcc_part_new(algo, part, settings, env, &p, err, ERRLEN);
    if (rc != HWCC_OK) {
        printf("%s rc=%d\n  err %s\n", label, rc, err);
        return NULL;
    }
    printf("%s rc=0 role=%d\n", label, hwcc_part_role(p));
    state(p);
    return p;
}

/* HPCC's INT header on the wire (Figure 7 of the HPCC paper), written and
 * read here byte by byte, big-endian, independently of hwcc's codec:
 *
 *     2 bytes       nhop << 12 | path_id                         (4, 12 bits)
 *     8 bytes each  B << 60 | ts << 36 | tx_bytes << 16 | qlen   (4, 24, 20, 16)
 */
typedef struct int_hop {
    uint64_t speed, ts, tx_bytes, qlen;
} int_hop;

/* int_put writes the header of nhop records and path_id into tel and
 * returns its length, 2 + 8 * nhop. */
static uint8_t int_put(uint8_t *tel, unsigned nhop, unsigned path_id, const int_hop *hops) {
    uint16_t prefix = (uint16_t)(nhop << 12 | path_id);
    tel[0] = (uint8_t)(prefix >> 8), tel[1] = (uint8_t)prefix;
    for (unsigned i = 0; i < nhop; i++) {
        const int_hop *h = &hops[i];
        uint64_t w = h->speed << 60 | h->ts << 36 | h->tx_bytes << 16 | h->qlen;
        for (int k = 0; k < 8; k++) tel[2 + 8 * i + k] = (uint8_t)(w >> (56 - 8 * k));
    }
    return (uint8_t)(2 + 8 * nhop);
}

/* print_int decodes a stack as an INT header and prints its fields as
 * "  int nhop=N path=P hops=B:TS:TX:Q,...", or says why it is not one. */
static void print_int(uint8_t len, const uint8_t *tel) {
    if (len < 2) {
        printf("  int short %u\n", (unsigned)len);
        return;
    }
    unsigned prefix = (unsigned)tel[0] << 8 | tel[1], nhop = prefix >> 12;
    if (len != 2 + 8 * nhop) {
        printf("  int length %u for nhop %u\n", (unsigned)len, nhop);
        return;
    }
    printf("  int nhop=%u path=%u hops=", nhop, prefix & 0xfff);
    for (unsigned i = 0; i < nhop; i++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++) w = w << 8 | tel[2 + 8 * i + k];
        printf("%s%u:%u:%u:%u", i ? "," : "", (unsigned)(w >> 60), (unsigned)(w >> 36 & 0xffffff),
               (unsigned)(w >> 16 & 0xfffff), (unsigned)(w & 0xffff));
    }
    printf("\n");
}

/* The INT header of HPCC's example (rp.ExampleHPCC): switch 0x2a, a 100
 * Gb/s port (speed code 4) with 162500 B queued (qlen 2031 units of 80 B),
 * stamped at ts (ns) after tx units of 128 B sent. */
static uint8_t hpcc_int(uint8_t *tel, uint32_t ts, uint32_t tx) {
    int_hop h = {4, ts, tx, 2031};
    return int_put(tel, 1, 0x2a, &h);
}

static int events(void) {
    const int64_t us = 1000000; /* ps */
    hwcc_packet pkt;
    hwcc_queue q;
    hwcc_feedback_t fb;
    int rc;

    printf("abi %d header %d live %zu\n", hwcc_abi_version(), HWCC_ABI_VERSION, hwcc_live_parts());
    printf("version %s\n", hwcc_version());

    /* Configuration errors. */
    make("new-unknown", "nosuch", "cp", "", NULL);
    make("new-badpart", "rocc", "nosuch", "", NULL);
    make("new-badvalue", "rocc", "cp", "t=abc", NULL);
    make("new-badsyntax", "rocc", "cp", "t", NULL);
    rc = hwcc_part_new(NULL, "cp", "", NULL, NULL, err, ERRLEN);
    printf("new-null rc=%d\n  err %s\n", rc, err);

    /* RoCC congestion point: switch 7, port 3, 40 Gb/s. */
    hwcc_env env;
    memset(&env, 0, sizeof env);
    env.rate = 40000000000LL;
    env.node = 7;
    env.port = 3;
    env.switch_id = 7;
    hwcc_part *cp = make("rocc-cp new", "rocc", "cp", "preset=auto", &env);

    memset(&pkt, 0, sizeof pkt);
    memset(&q, 0, sizeof q);
    pkt.flow = 42, pkt.src = 1, pkt.dst = 2, pkt.payload = 1000, pkt.size = 1500;
    q.len = 1500, q.rate = 40000000000LL;
    report("rocc-cp enqueue 0", hwcc_enqueue(cp, 0, 0, &pkt, &q, acts, CAP, &n, err, ERRLEN));
    state(cp);
    report("rocc-cp timer 0", hwcc_timer(cp, 0, acts, CAP, &n, err, ERRLEN));
    state(cp);
    pkt.flow = 43, pkt.src = 4, q.len = 300000;
    report("rocc-cp enqueue 10us", hwcc_enqueue(cp, 10 * us, 0, &pkt, &q, acts, CAP, &n, err, ERRLEN));
    pkt.flow = 42, pkt.src = 1, q.len = 298500, q.tx_bytes = 1500;
    report("rocc-cp dequeue 20us", hwcc_dequeue(cp, 20 * us, 0, &pkt, &q, acts, CAP, &n, err, ERRLEN));
    print_packet(&pkt);
    int64_t t = hwcc_next_deadline(cp);
    n = 99;
    report("rocc-cp timer-full", hwcc_timer(cp, t, acts, 0, &n, err, ERRLEN));
    printf("  n-after-full=%zu\n", n);
    state(cp);
    report("rocc-cp timer", hwcc_timer(cp, t, acts, CAP, &n, err, ERRLEN));
    state(cp);
    report("rocc-cp timer-order", hwcc_timer(cp, us, acts, CAP, &n, err, ERRLEN));
    report("rocc-cp sent-role", hwcc_sent(cp, t, &pkt, acts, CAP, &n, err, ERRLEN));
    report("rocc-cp enqueue-null", hwcc_enqueue(cp, t, 0, NULL, &q, acts, CAP, &n, err, ERRLEN));
    {
        hwcc_limits_t l;
        printf("rocc-cp limits rc=%d\n", hwcc_limits(cp, &l));
        hwcc_register regs[2];
        size_t k = 0;
        rc = hwcc_registers(cp, regs, 2, &k);
        printf("rocc-cp registers-short rc=%d n=%zu first=%s\n", rc, k, regs[0].name);
    }
    t = hwcc_next_deadline(cp);
    report("rocc-cp timer-2", hwcc_timer(cp, t, acts, CAP, &n, err, ERRLEN));
    state(cp);

    /* HPCC congestion point: switch 0x2a, a 100 Gb/s port stamping the
     * caller's port counter. Each dequeue of a packet carrying a stack
     * pushes the port's record onto it; print_int reads the result by hand. */
    memset(&env, 0, sizeof env);
    env.rate = 100000000000LL;
    env.node = 5;
    env.port = 1;
    env.switch_id = 0x2a;
    hwcc_part *hc = make("hpcc-cp new", "hpcc", "cp", "port_tx_bytes=on", &env);
    memset(&pkt, 0, sizeof pkt);
    memset(&q, 0, sizeof q);
    pkt.flow = 9, pkt.src = 1, pkt.dst = 2, pkt.payload = 1000, pkt.size = 1082;
    pkt.tel_len = int_put(pkt.tel, 0, 0, NULL); /* the empty header a sender attaches */
    q.len = 163582, q.rate = 100000000000LL;
    report("hpcc-cp enqueue 1us", hwcc_enqueue(hc, us, 0, &pkt, &q, acts, CAP, &n, err, ERRLEN));
    q.len = 162500, q.tx_bytes = 0;
    report("hpcc-cp dequeue 10us", hwcc_dequeue(hc, 10 * us, 0, &pkt, &q, acts, CAP, &n, err, ERRLEN));
    print_packet(&pkt);
    print_int(pkt.tel_len, pkt.tel);
    state(hc);
    {
        /* A frame stamped upstream by switch 0x123 (a 40 Gb/s port, code 2)
         * gets its second record. */
        int_hop up = {2, 22000, 7, 5};
        pkt.tel_len = int_put(pkt.tel, 1, 0x123, &up);
    }
    q.len = 800, q.tx_bytes = 162500;
    report("hpcc-cp dequeue 23us", hwcc_dequeue(hc, 23 * us, 0, &pkt, &q, acts, CAP, &n, err, ERRLEN));
    print_packet(&pkt);
    print_int(pkt.tel_len, pkt.tel);
    /* Refused, changing nothing: a stack above HWCC_TEL_CAP (by the ABI),
     * a stack that is not one INT header (by the part). */
    pkt.tel_len = HWCC_TEL_CAP + 1;
    report("hpcc-cp dequeue-telcap", hwcc_dequeue(hc, 24 * us, 0, &pkt, &q, acts, CAP, &n, err, ERRLEN));
    printf("  tel_len-after=%u\n", (unsigned)pkt.tel_len);
    pkt.tel_len = 17;
    report("hpcc-cp dequeue-badtel", hwcc_dequeue(hc, 24 * us, 0, &pkt, &q, acts, CAP, &n, err, ERRLEN));
    print_packet(&pkt);
    /* A packet without a stack stays without. */
    pkt.tel_len = 0;
    q.len = 0, q.tx_bytes = 163582;
    report("hpcc-cp dequeue-notel", hwcc_dequeue(hc, 24 * us, 0, &pkt, &q, acts, CAP, &n, err, ERRLEN));
    print_packet(&pkt);
    state(hc);

    /* HPCC reaction point at 100 Gb/s: the example's two ACKs. */
    memset(&env, 0, sizeof env);
    env.rate = 100000000000LL;
    env.node = 1;
    hwcc_part *hp = make("hpcc-rp new", "hpcc", "rp", "", &env);
    memset(&pkt, 0, sizeof pkt);
    pkt.flow = 9, pkt.src = 1, pkt.dst = 2, pkt.payload = 1000, pkt.size = 1082;
    report("hpcc-rp sent 0", hwcc_sent(hp, 0, &pkt, acts, CAP, &n, err, ERRLEN));
    print_packet(&pkt);
    state(hp);
    memset(&fb, 0, sizeof fb);
    fb.kind = HWCC_FB_ACK, fb.flow = 9, fb.seq = 1000, fb.acked = 1000, fb.snd_nxt = 163500;
    fb.tel_len = hpcc_int(fb.tel, 10000, 0);
    report("hpcc-rp ack 12us", hwcc_feedback(hp, 12 * us, &fb, acts, CAP, &n, err, ERRLEN));
    state(hp);
    fb.seq = 163501, fb.acked = 162501, fb.snd_nxt = 170000;
    fb.tel_len = hpcc_int(fb.tel, 23000, 1269);
    /* A stack longer than HWCC_TEL_CAP is refused before the part sees it;
     * one of 9 bytes is not an INT header (2 + 8 * nhop), which the part
     * refuses. Neither changes anything. */
    fb.tel_len = HWCC_TEL_CAP + 1;
    report("hpcc-rp ack-telcap", hwcc_feedback(hp, 25 * us, &fb, acts, CAP, &n, err, ERRLEN));
    fb.tel_len = 9;
    report("hpcc-rp ack-badtel", hwcc_feedback(hp, 25 * us, &fb, acts, CAP, &n, err, ERRLEN));
    fb.tel_len = hpcc_int(fb.tel, 23000, 1269);
    report("hpcc-rp ack 25us", hwcc_feedback(hp, 25 * us, &fb, acts, CAP, &n, err, ERRLEN));
    state(hp);
    fb.tel_len = 0, fb.seq = 170000;
    report("hpcc-rp ack-noint", hwcc_feedback(hp, 26 * us, &fb, acts, CAP, &n, err, ERRLEN));
    memset(&fb, 0, sizeof fb);
    fb.kind = HWCC_FB_CNP, fb.flow = 9;
    report("hpcc-rp cnp", hwcc_feedback(hp, 27 * us, &fb, acts, CAP, &n, err, ERRLEN));
    state(hp);

    /* DCQCN reaction point at 100 Gb/s: a CNP, then recovery. */
    hwcc_part *dq = make("dcqcn-rp new", "dcqcn", "rp", "", &env);
    memset(&pkt, 0, sizeof pkt);
    pkt.flow = 5, pkt.src = 1, pkt.dst = 3, pkt.payload = 1000, pkt.size = 1082;
    report("dcqcn-rp sent 0", hwcc_sent(dq, 0, &pkt, acts, CAP, &n, err, ERRLEN));
    state(dq);
    memset(&fb, 0, sizeof fb);
    fb.kind = HWCC_FB_CNP, fb.flow = 5;
    report("dcqcn-rp cnp 1us", hwcc_feedback(dq, us, &fb, acts, CAP, &n, err, ERRLEN));
    state(dq);
    for (int i = 0; i < 3; i++) {
        char label[64];
        t = hwcc_next_deadline(dq);
        snprintf(label, sizeof label, "dcqcn-rp timer %d", i);
        report(label, hwcc_timer(dq, t, acts, CAP, &n, err, ERRLEN));
        state(dq);
    }
    pkt.seq = 1000;
    report("dcqcn-rp sent", hwcc_sent(dq, t, &pkt, acts, CAP, &n, err, ERRLEN));
    state(dq);

    /* DCQCN notification point: a CE-marked packet answers with a CNP. */
    hwcc_part *np = make("dcqcn-np new", "dcqcn", "np", "", &env);
    memset(&pkt, 0, sizeof pkt);
    pkt.flow = 5, pkt.src = 1, pkt.dst = 3, pkt.payload = 1000, pkt.size = 1082, pkt.ce = 1;
    report("dcqcn-np receive", hwcc_receive(np, 2 * us, &pkt, acts, CAP, &n, err, ERRLEN));
    state(np);
    report("dcqcn-np receive-2", hwcc_receive(np, 3 * us, &pkt, acts, CAP, &n, err, ERRLEN));
    report("dcqcn-np arrive-role", hwcc_arrive(np, 3 * us, 0, &pkt, acts, CAP, &n, err, ERRLEN));
    report("dcqcn-np pause-role", hwcc_pause(np, 3 * us, 0, 3, 1, acts, CAP, &n, err, ERRLEN));
    report("dcqcn-np message-role", hwcc_message(np, 3 * us, 0, &fb, acts, CAP, &n, err, ERRLEN));

    printf("live %zu\n", hwcc_live_parts());
    hwcc_part_free(cp);
    hwcc_part_free(hc);
    hwcc_part_free(hp);
    hwcc_part_free(dq);
    hwcc_part_free(np);
    hwcc_part_free(np); /* twice: ignored */
    hwcc_part_free(NULL);
    report("freed timer", hwcc_timer(cp, t, acts, CAP, &n, err, ERRLEN));
    printf("freed role=%d deadline=%" PRId64 "\n", hwcc_part_role(cp), hwcc_next_deadline(cp));
    printf("live %zu\n", hwcc_live_parts());
    printf("strerror %s|%s|%s\n", hwcc_strerror(HWCC_E_ACTIONS_FULL), hwcc_strerror(HWCC_E_TIME_ORDER),
           hwcc_strerror(12345));
    return 0;
}

static int leak(long count) {
    size_t before = hwcc_live_parts();
    hwcc_env env;
    memset(&env, 0, sizeof env);
    env.rate = 100000000000LL;
    for (long i = 0; i < count; i++) {
        hwcc_part *p = NULL;
        int rc = hwcc_part_new("dcqcn", "rp", "", &env, &p, err, ERRLEN);
        if (rc != HWCC_OK) {
            printf("leak new %ld rc=%d %s\n", i, rc, err);
            return 1;
        }
        hwcc_part_free(p);
    }
    printf("leak count=%ld before=%zu after=%zu\n", count, before, hwcc_live_parts());
    return 0;
}

int main(int argc, char **argv) {
    if (hwcc_abi_version() != HWCC_ABI_VERSION) {
        fprintf(stderr, "hwcc ABI %d, header %d\n", hwcc_abi_version(), HWCC_ABI_VERSION);
        return 2;
    }
    if (argc >= 2 && strcmp(argv[1], "leak") == 0) {
        return leak(argc >= 3 ? atol(argv[2]) : 100000);
    }
    return events();
}
