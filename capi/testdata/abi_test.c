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

static void print_int(const hwcc_int_header *h) {
    printf(" nhop=%u path=%u hops=", (unsigned)h->nhop, (unsigned)h->path_id);
    for (unsigned i = 0; i < h->nhop && i < HWCC_INT_MAX_HOPS; i++) {
        const hwcc_int_hop *x = &h->hops[i];
        printf("%s%u:%" PRIu32 ":%" PRIu32 ":%u", i ? "," : "", (unsigned)x->speed, x->ts, x->tx_bytes,
               (unsigned)x->qlen);
    }
}

static void print_feedback(const hwcc_feedback_t *f) {
    printf("  fb kind=%u flow=%" PRIu32 " from=%" PRIu64 " seq=%" PRIu64 " acked=%" PRId64
           " snd_nxt=%" PRIu64 " ece=%u data=",
           (unsigned)f->kind, f->flow, f->from, f->seq, f->acked, f->snd_nxt, (unsigned)f->ece);
    for (int i = 0; i < HWCC_DATA_LEN; i++) printf("%02x", (unsigned)f->data[i]);
    printf(" int=%u", (unsigned)f->has_int);
    if (f->has_int) print_int(&f->int_hdr);
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
    printf("  pkt echo=%" PRIu64 " hdr=", p->echo);
    for (int i = 0; i < HWCC_HDR_LEN; i++) printf("%02x", (unsigned)p->hdr[i]);
    printf(" int=%u", (unsigned)p->has_int);
    if (p->has_int) print_int(&p->int_hdr);
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

/* The INT header of HPCC's example (rp.ExampleHPCC): switch 0x2a, a 100
 * Gb/s port with 162500 B queued, stamped at 10 us and at 23 us after
 * 162500 B sent. */
static void hpcc_int(hwcc_int_header *h, uint32_t ts, uint32_t tx) {
    memset(h, 0, sizeof *h);
    h->nhop = 1;
    h->path_id = 0x2a;
    h->hops[0].speed = 4;
    h->hops[0].ts = ts;
    h->hops[0].tx_bytes = tx;
    h->hops[0].qlen = 2031;
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
    fb.kind = HWCC_FB_ACK, fb.flow = 9, fb.seq = 1000, fb.acked = 1000, fb.snd_nxt = 163500, fb.has_int = 1;
    hpcc_int(&fb.int_hdr, 10000, 0);
    report("hpcc-rp ack 12us", hwcc_feedback(hp, 12 * us, &fb, acts, CAP, &n, err, ERRLEN));
    state(hp);
    fb.seq = 163501, fb.acked = 162501, fb.snd_nxt = 170000;
    hpcc_int(&fb.int_hdr, 23000, 1269);
    report("hpcc-rp ack 25us", hwcc_feedback(hp, 25 * us, &fb, acts, CAP, &n, err, ERRLEN));
    state(hp);
    fb.has_int = 0, fb.seq = 170000;
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
