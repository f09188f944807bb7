/* Drives the vendor's part "acme" "cp" through hwcc's C ABI, as a C
 * testbench drives hwcc's own parts: one queue, 1 KB packets, thresholds
 * low 30 KB and high 70 KB. It fills the queue to 100 KB, drains it to
 * 50 KB, adds 10 packets (still above low: the marker stays on), drains
 * it to 25 KB (at or below low: off) and adds 10 more, printing the marks
 * of each phase, the registers, and the refusal of a bad setting. */
#include <stdio.h>
#include <string.h>
#include "hwcc.h"

static hwcc_part *p;
static hwcc_packet pkt;
static hwcc_queue q;
static int64_t now;
static char err[256];

/* enqueue adds k packets and returns how many were marked, or -1. */
static int enqueue(int k) {
    hwcc_action acts[4];
    size_t n = 0;
    int marks = 0;
    for (int i = 0; i < k; i++) {
        now += 100000; /* 100 ns */
        q.len += pkt.size;
        if (hwcc_enqueue(p, now, 0, &pkt, &q, acts, 4, &n, err, sizeof err) != 0)
            return -1;
        if (n == 1 && acts[0].kind == HWCC_ACT_MARK_CE)
            marks++;
    }
    return marks;
}

/* dequeue takes k packets out, or returns -1. */
static int dequeue(int k) {
    size_t n = 0;
    for (int i = 0; i < k; i++) {
        now += 100000;
        q.len -= pkt.size;
        if (hwcc_dequeue(p, now, 0, &pkt, &q, NULL, 0, &n, err, sizeof err) != 0)
            return -1;
    }
    return 0;
}

int main(void) {
    if (hwcc_part_new("acme", "cp", "low=30KB, high=70KB", NULL, &p, err, sizeof err) != 0) {
        printf("new: %s\n", err);
        return 1;
    }
    memset(&pkt, 0, sizeof pkt);
    pkt.size = 1000;
    memset(&q, 0, sizeof q);
    q.rate = 100000000000LL;
    int fill = enqueue(100);
    int d1 = dequeue(50);
    int hold = enqueue(10);
    int d2 = dequeue(35);
    int after = enqueue(10);
    if (fill < 0 || d1 < 0 || hold < 0 || d2 < 0 || after < 0) {
        printf("event: %s\n", err);
        return 1;
    }
    printf("fill %d, hold %d, after %d\n", fill, hold, after);
    hwcc_register regs[8];
    size_t nr = 0;
    hwcc_registers(p, regs, 8, &nr);
    for (size_t i = 0; i < nr; i++)
        printf("%s=%llu\n", regs[i].name, (unsigned long long)regs[i].value);
    hwcc_part_free(p);
    if (hwcc_part_new("acme", "cp", "low=80KB, high=70KB", NULL, &p, err, sizeof err) != 0)
        printf("refused: %s\n", err);
    return 0;
}
