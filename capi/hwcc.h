/*
 * hwcc.h: the C ABI of hwcc, a library of datacenter congestion-control
 * state machines (NIC and switch models) written in Go.
 *
 * This header is written by hand and is the stable interface; the header
 * cgo generates next to libhwcc.a (libhwcc.h) is an implementation detail
 * and should not be included.
 *
 * ABI version 2. A program checks at start-up that the library it runs
 * against speaks the version it was compiled for:
 *
 *     if (hwcc_abi_version() != HWCC_ABI_VERSION) abort();
 *
 * Any change to a struct layout, a function's signature or the meaning of
 * a value below increments HWCC_ABI_VERSION. Additions (a new function, a
 * new error code, a new algorithm) do not.
 *
 * Version 2 changed hwcc_packet and hwcc_feedback_t: the telemetry a frame
 * carries is a stack of wire bytes, tel_len and tel, in the codec of the
 * algorithm that reads it (version 1 had HPCC's INT header as a struct,
 * has_int and int_hdr, whose types hwcc_int_header and hwcc_int_hop are
 * gone); hwcc_packet's echo is gone (a scheme's per-packet number travels
 * in hdr); HWCC_INT_MAX_HOPS is replaced by HWCC_TEL_CAP.
 *
 * Build and link (see README.md, "C ABI"):
 *
 *     go build -buildmode=c-archive -o libhwcc.a ./capi/libhwcc
 *     cc prog.c libhwcc.a -lpthread -ldl       (-ldl: glibc before 2.34)
 *
 * or -buildmode=c-shared -o libhwcc.so and link with -lhwcc.
 *
 * ------------------------------------------------------------------------
 * Model
 *
 * A part is one instance of one role of one registered algorithm: a
 * congestion point (CP, one switch egress queue), a reaction point (RP,
 * one sending flow), a notification point (NP, one receiving flow) or a
 * switch point (SW, state across the ports of one switch). The caller
 * reports events to it (a packet sent, a feedback message received, a
 * timer expiry, ...); the part decides what to do and writes its
 * decisions to the caller's action array. Parts never read a clock and
 * never call back: every event carries its time, and the caller calls
 * hwcc_timer at or after hwcc_next_deadline.
 *
 * Units. Every time is in picoseconds (int64_t, from an arbitrary origin
 * >= 0, non-decreasing per part); every rate in bit/s (int64_t); every
 * size in bytes (int64_t); sequence numbers are 64-bit byte offsets.
 *
 * Rules every part keeps (the Go package cc's contract):
 *   1. Time order: an event whose now_ps is before the latest accepted one
 *      fails with HWCC_E_TIME_ORDER. Equal times are in order.
 *   2. Atomic errors: an event that fails changes nothing, neither the part
 *      nor the caller's action array, packet or count, so it may be
 *      retried (with a larger action array, say).
 *   3. Bounded output: an event whose decisions do not fit the caller's
 *      capacity fails with HWCC_E_ACTIONS_FULL and (rule 2) does nothing.
 *   4. Determinism: equal configurations and equal events give equal
 *      actions and registers, bit for bit.
 *
 * Ownership. Every pointer argument is owned by the caller and only read
 * (or, for outputs, written) during the call; the library keeps no
 * pointer the caller passed past the call's return. Strings are
 * NUL-terminated UTF-8. The library allocates nothing the caller frees
 * except the part itself, released with hwcc_part_free.
 *
 * Threads. Any number of threads may create, use and free parts at the
 * same time, each part being used by one thread at a time: the calls on
 * one handle must not overlap. A call on a handle another thread is in
 * the middle of using is refused with HWCC_E_BUSY (it does not corrupt
 * the part); hwcc_part_free waits for such a call to end. The functions
 * that take no handle are safe from any thread. The Go runtime starts its
 * own threads on the first call.
 *
 * Errors. Functions that return int return 0 (HWCC_OK) on success or one
 * of the negative HWCC_E_* codes. Functions that take err and errlen also
 * copy a message into err: NUL-terminated, cut to errlen - 1 bytes, ""
 * on success; err may be NULL (or errlen 0) when the message is not
 * wanted. hwcc_strerror names a code.
 * ------------------------------------------------------------------------
 */
#ifndef HWCC_H
#define HWCC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header's ABI; hwcc_abi_version() is the library's. */
#define HWCC_ABI_VERSION 2

/* ---- Error codes -------------------------------------------------------- */

#define HWCC_OK 0
/* The handle is NULL, was freed, or was never returned by hwcc_part_new. */
#define HWCC_E_HANDLE (-1)
/* A required pointer argument is NULL (or an env's switch_ports is NULL
 * with n_switch_ports > 0, or n_switch_ports is above 65536, or a packet's
 * or feedback's tel_len is above HWCC_TEL_CAP). */
#define HWCC_E_ARG (-2)
/* The event is not one of the part's role (hwcc_sent on a CP, say). */
#define HWCC_E_ROLE (-3)
/* Configuration: unknown algorithm or part, unknown setting, malformed
 * or out-of-range value, an environment the part cannot run in. */
#define HWCC_E_CONFIG (-4)
/* The event's now_ps is before the latest time the part accepted. */
#define HWCC_E_TIME_ORDER (-5)
/* The part refuses the event in its state (an ACK of data never sent, a
 * malformed feedback payload, a field wider than its register). */
#define HWCC_E_EVENT (-6)
/* The event's actions do not fit the capacity given; nothing changed. */
#define HWCC_E_ACTIONS_FULL (-7)
/* Malformed input bytes (a feedback payload the part decodes). */
#define HWCC_E_DECODE (-8)
/* Another thread is using this handle right now. */
#define HWCC_E_BUSY (-9)
/* hwcc_registers: more registers than the capacity given (the first cap
 * are written, *n is the full count). */
#define HWCC_E_TRUNCATED (-10)
/* A bug in hwcc (an untyped error or a recovered panic); please report. */
#define HWCC_E_INTERNAL (-11)

/* ---- Enumerations (the values of cc's Go constants) --------------------- */

/* Roles (hwcc_part_role). */
#define HWCC_ROLE_CP 1 /* congestion point: hwcc_enqueue, hwcc_dequeue */
#define HWCC_ROLE_RP 2 /* reaction point: hwcc_sent, hwcc_feedback, hwcc_limits */
#define HWCC_ROLE_NP 3 /* notification point: hwcc_receive, hwcc_feedback */
#define HWCC_ROLE_SW 4 /* switch point: hwcc_arrive, hwcc_enqueue, hwcc_dequeue,
                          hwcc_pause, hwcc_message */

/* Feedback kinds (hwcc_feedback_t.kind). Values from 128 up are free for
 * schemes outside hwcc. A part takes a kind it does not use as an event
 * that changes nothing but the time. */
#define HWCC_FB_NONE 0
#define HWCC_FB_ACK 1            /* cumulative ACK: seq, acked, snd_nxt, ece, tel */
#define HWCC_FB_NAK 2            /* go-back-N NAK: seq is the byte expected */
#define HWCC_FB_CNP 3            /* RoCEv2 CNP; data: its 16 reserved bytes */
#define HWCC_FB_RATE 4           /* a CP's rate message; data, from */
#define HWCC_FB_CREDIT 5         /* a credit (seq: its sequence number) */
#define HWCC_FB_CREDIT_REQUEST 6 /* ask the receiver to start credits */
#define HWCC_FB_CREDIT_STOP 7    /* ask the receiver to stop credits */
#define HWCC_FB_USER 128

/* Action kinds (hwcc_action.kind). */
#define HWCC_ACT_MARK_CE 1  /* set ECN CE on this event's packet */
#define HWCC_ACT_DROP 2     /* drop this event's packet */
#define HWCC_ACT_FEEDBACK 3 /* send feedback to `to` at priority prio */
#define HWCC_ACT_PAUSE 4    /* ask the upstream neighbour to pause prio */
#define HWCC_ACT_RESUME 5   /* ask the upstream neighbour to resume prio */
#define HWCC_ACT_CREDIT 6   /* add bytes of credit to the VOQ toward node at port */
#define HWCC_ACT_ASSIGN_QUEUE 7 /* the Enqueue's packet waits in physical queue `queue` */
#define HWCC_ACT_PAUSE_QUEUE 8  /* stop serving physical queue `queue` of egress port */
#define HWCC_ACT_RESUME_QUEUE 9 /* resume serving physical queue `queue` of egress port */

/* Destinations of an HWCC_ACT_FEEDBACK (hwcc_action.to). */
#define HWCC_TO_SOURCE 0      /* the flow's source host */
#define HWCC_TO_DESTINATION 1 /* the flow's destination host */
#define HWCC_TO_SWITCH 2      /* the switch whose switch ID is switch_id */

/* hwcc_next_deadline's value when the part has no timer running. */
#define HWCC_NO_DEADLINE INT64_MAX

/* Fixed sizes. */
#define HWCC_HDR_LEN 16       /* hwcc_packet.hdr */
#define HWCC_DATA_LEN 16      /* hwcc_feedback_t.data */
#define HWCC_TEL_CAP 128      /* hwcc_packet.tel, hwcc_feedback_t.tel */
#define HWCC_REG_NAME_LEN 32  /* hwcc_register.name, NUL included */
#define HWCC_MAX_ACTIONS 65536 /* a larger capacity is taken as this */

/* ---- Plain data ----------------------------------------------------------
 *
 * Plain C structs, mirroring the Go package cc's value types, filled by the
 * caller per event (inputs) or by the library (outputs). Zero-initialise
 * them ({0} or memset): every field has a meaning, and zero is the neutral
 * value. Flags are uint8_t, 0 or 1. The feedback and limits types carry a
 * _t suffix because the functions hwcc_feedback and hwcc_limits take their
 * plain names.
 */

/* Telemetry. A frame may carry an in-band telemetry stack, tel_len bytes
 * tel[0 .. tel_len-1] in the wire format of the codec of the algorithm
 * that reads it: the sender attaches it, each switch on the path may push
 * its record onto it as the frame leaves (hwcc_dequeue: the caller then
 * counts the bytes it grew by in the frame's size), the receiver echoes
 * it to the sender in an ACK (hwcc_feedback_t). tel_len 0 means
 * the frame carries no stack (the part sees none); a stack of 0 bytes
 * cannot be expressed, and no codec of hwcc's gives one a meaning. Bytes
 * past tel_len are ignored on input. A tel_len above HWCC_TEL_CAP is
 * refused with HWCC_E_ARG.
 *
 * HPCC's INT (Figure 7 of the HPCC paper), big-endian, 2 + 8 * nhop bytes:
 *
 *     bytes 0-1:           nhop << 12 | path_id      (4 and 12 bits)
 *     bytes 2+8i .. 9+8i:  B << 60 | ts << 36 | tx_bytes << 16 | qlen
 *                          (4, 24, 20 and 16 bits; record i, first switch first)
 *
 * A sender attaches the empty header, the 2 bytes 00 00. int/doc.go in
 * hwcc's source gives the fields' units and wrapping rules (by default: B
 * a port speed code, ts in 1 ns, tx_bytes in 128 B, qlen in 80 B). */

/* One frame as a part sees it (Go: cc.Packet). */
typedef struct hwcc_packet {
    uint32_t flow;    /* flow ID: the part keys its tables by it */
    uint32_t src;     /* source host */
    uint32_t dst;     /* destination host */
    uint64_t seq;     /* offset of the first payload byte in the flow */
    int64_t payload;  /* data bytes carried, >= 0 */
    int64_t size;     /* bytes a queue counts for it (wire bytes, the
                         telemetry stack included as pushed so far), >= 0 */
    uint8_t prio;     /* 802.1p priority, 0..7 */
    uint8_t ce;       /* 1: arrives with ECN CE set (an NP reads it) */
    uint8_t hdr[HWCC_HDR_LEN]; /* header bytes a scheme defines, in its own
                                  codec (written by an RP in hwcc_sent and
                                  a SW in hwcc_dequeue); all zero: none */
    uint8_t tel_len;           /* bytes of tel in use; 0: no stack */
    uint8_t tel[HWCC_TEL_CAP]; /* the telemetry stack (see Telemetry above) */
} hwcc_packet;

/* One egress queue's state at an event (Go: cc.Queue). */
typedef struct hwcc_queue {
    int64_t len;       /* bytes queued (on enqueue: with the packet; on
                          dequeue: what it leaves behind) */
    int64_t rate;      /* the port's line rate, bit/s */
    uint64_t tx_bytes; /* the port's free-running bytes-sent counter, or 0 */
    uint8_t paused;    /* 1: PFC has paused this queue's priority */
} hwcc_queue;

/* A message back to a flow's source, or to a switch (Go: cc.Feedback). */
typedef struct hwcc_feedback_t {
    uint8_t kind;     /* HWCC_FB_* */
    uint8_t ece;      /* ACK: a covered packet arrived with CE */
    uint32_t flow;    /* the flow it is about */
    uint64_t from;    /* sender identity, an opaque number the sending part
                         chooses (0: none); carry it unchanged */
    uint64_t seq;     /* ACK: all bytes below arrived; NAK: byte expected */
    int64_t acked;    /* ACK: bytes acknowledged for the first time */
    uint64_t snd_nxt; /* ACK: the sender's next new byte when it arrived */
    uint8_t data[HWCC_DATA_LEN]; /* payload, in the codec of its kind
                                    (CNP: its reserved bytes) */
    uint8_t tel_len;             /* bytes of tel in use; 0: no stack */
    uint8_t tel[HWCC_TEL_CAP];   /* the telemetry stack an ACK echoes */
} hwcc_feedback_t;

/* One decision of a part (Go: cc.Action). */
typedef struct hwcc_action {
    uint8_t kind;       /* HWCC_ACT_* */
    uint8_t to;         /* HWCC_TO_*: where an HWCC_ACT_FEEDBACK goes */
    uint8_t prio;       /* priority of a feedback, pause or resume */
    uint16_t switch_id; /* the target switch when to == HWCC_TO_SWITCH */
    uint32_t node;      /* HWCC_ACT_CREDIT: the VOQ's destination host */
    uint16_t port;      /* HWCC_ACT_CREDIT, _PAUSE_QUEUE, _RESUME_QUEUE: the egress port */
    uint16_t queue;     /* HWCC_ACT_ASSIGN_QUEUE, _PAUSE_QUEUE, _RESUME_QUEUE: the
                           physical queue (in what was padding: the layout of the
                           other fields is unchanged) */
    int64_t bytes;      /* HWCC_ACT_CREDIT: the credit, bytes */
    hwcc_feedback_t feedback; /* HWCC_ACT_FEEDBACK: the message */
} hwcc_action;

/* What a reaction point allows its flow now (Go: cc.Limits). */
typedef struct hwcc_limits_t {
    int64_t rate;     /* pacing rate of wire bytes, bit/s; 0: unpaced */
    int64_t window;   /* most unacknowledged payload bytes; 0: no window */
    uint8_t credited; /* 1: the flow sends only on credit */
    int64_t credit;   /* the credit held now, bytes (when credited) */
} hwcc_limits_t;

/* One register of a part's snapshot (Go: cc.Register). value holds the
 * register's bits: a signed register's two's complement in its low width
 * bits. */
typedef struct hwcc_register {
    char name[HWCC_REG_NAME_LEN]; /* NUL-terminated, cut to 31 bytes
                                     (at a UTF-8 character boundary) */
    uint8_t width;                /* bits, 1..64 */
    uint8_t is_signed;            /* 1: value is two's complement */
    uint64_t value;
} hwcc_register;

/* One port of a switch point's switch (Go: cc.SwitchPort). */
typedef struct hwcc_switch_port {
    int64_t rate;  /* line rate, bit/s */
    uint8_t edge;  /* 1: faces a host */
    uint32_t host; /* that host's node ID (edge ports) */
} hwcc_switch_port;

/* Where a part runs (Go: cc.Env). Every field is optional: 0 (NULL) is
 * unknown. Presets scale to rate, and the environment sets what depends
 * on it (a RoCC CP's Fmax and its CNPs' switch and port, HPCC's T from
 * base_rtt); an explicit setting overrides it. */
typedef struct hwcc_env {
    int64_t rate;       /* a CP's port rate, an RP's or NP's NIC rate, bit/s */
    uint32_t node;      /* the switch (CP, SW) or host (RP, NP) */
    uint16_t port;      /* a CP's egress port on its switch */
    uint16_t switch_id; /* 12-bit switch ID (INT's path ID) */
    int64_t base_rtt;   /* ps: the flow's (or the network's largest) base RTT */
    int64_t bottleneck; /* bit/s: smallest link rate on the flow's path */
    int32_t hops;       /* switches on the flow's path */
    int64_t payload;    /* bytes: a full packet's payload (MSS) */
    int64_t size;       /* bytes: the flow's length when known, else 0 */
    int32_t ports;      /* a switch point's port count (ports 0..ports-1) */
    const hwcc_switch_port *switch_ports; /* n_switch_ports entries, or NULL */
    size_t n_switch_ports; /* 0, or == ports */
    int32_t index;      /* 1-based instance number among its role, or 0 */
} hwcc_env;

/* A part: an opaque handle (an index into the library's table and a
 * generation count packed into the pointer's bits, not a pointer to
 * memory: never dereference it). hwcc supports 64-bit platforms only. */
typedef struct hwcc_part hwcc_part;

/* ---- Functions ----------------------------------------------------------- */

/* The library's ABI version: HWCC_ABI_VERSION of the header it was built
 * with. */
int hwcc_abi_version(void);

/* The hwcc release the library was built from, as "major.minor.patch"
 * (Go's cc.Version; `hwcc version` prints the same): a static
 * NUL-terminated string the caller must not modify or free. It names the
 * release; whether the library can be called at all is hwcc_abi_version's
 * answer, which changes only with the ABI. */
const char *hwcc_version(void);

/* A static English name of an error code ("time order", ...). */
const char *hwcc_strerror(int code);

/* Builds part `part` ("cp", "rp", "np", ...) of algorithm `algorithm`
 * ("rocc", "hpcc", "dcqcn", ...) from settings "name=value, name=value"
 * (NULL or "" for the default preset), running in env (NULL: unknown),
 * and stores its handle in *out. Errors: HWCC_E_CONFIG (unknown algorithm,
 * part or setting, bad value: the message names it and its range),
 * HWCC_E_ARG (a NULL name or out). On error *out is NULL. */
int hwcc_part_new(const char *algorithm, const char *part, const char *settings,
                  const hwcc_env *env, hwcc_part **out, char *err, size_t errlen);

/* Releases a part. NULL and already-freed handles are ignored. The handle
 * is invalid afterwards: a call with it returns HWCC_E_HANDLE (until the
 * table reuses the slot for a new part 2^32 creations later). */
void hwcc_part_free(hwcc_part *p);

/* The part's role, HWCC_ROLE_*, or HWCC_E_HANDLE / HWCC_E_BUSY. */
int hwcc_part_role(hwcc_part *p);

/* The number of parts created and not yet freed (a leak check). */
size_t hwcc_live_parts(void);

/*
 * Events. Each takes the part, the event's time now_ps, the event's
 * arguments, and the caller's action array acts of capacity cap (acts may
 * be NULL when cap is 0); on success it writes the part's decisions to
 * acts[0 .. *n-1] and their count to *n (n may be NULL) and returns 0.
 * On error it returns a negative code, copies the message into err, and
 * writes nothing else (acts, *n and the packet are unchanged).
 *
 * Beside the common codes (HWCC_E_HANDLE, HWCC_E_BUSY, HWCC_E_ARG,
 * HWCC_E_TIME_ORDER, HWCC_E_ACTIONS_FULL), an event may return
 * HWCC_E_EVENT (refused in the part's state) and HWCC_E_ROLE (the part's
 * role has no such event).
 *
 * Packets are read, and on success written back where the part may write
 * them: hwcc_sent may write hdr; hwcc_dequeue may write hdr and, when the
 * packet carries a stack (tel_len > 0), push a record onto it (tel_len and
 * tel[0 .. tel_len-1] are written back; a packet without one stays
 * without). Nothing else of a packet is written (tel past tel_len
 * included), and feedback and queues are only read. An action's feedback
 * is written whole: its tel past tel_len is zero.
 *
 * A port (out, in) is a switch point's port number 0..ports-1; a
 * congestion point ignores it (pass 0). hwcc_message's in is -1 for a
 * message the switch sent itself.
 */

/* RP: the flow starts to transmit pkt (retransmissions included). */
int hwcc_sent(hwcc_part *p, int64_t now_ps, hwcc_packet *pkt,
              hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen);
/* RP or NP: a message for the flow arrives (ACK, NAK, CNP, rate, credit). */
int hwcc_feedback(hwcc_part *p, int64_t now_ps, const hwcc_feedback_t *f,
                  hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen);
/* Any role: the timer, at or after hwcc_next_deadline (earlier: records
 * now_ps only). */
int hwcc_timer(hwcc_part *p, int64_t now_ps,
               hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen);
/* CP or SW: pkt has joined egress queue q (of port out, for a SW). */
int hwcc_enqueue(hwcc_part *p, int64_t now_ps, int32_t out, hwcc_packet *pkt,
                 const hwcc_queue *q,
                 hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen);
/* CP or SW: pkt has left egress queue q to start transmission. */
int hwcc_dequeue(hwcc_part *p, int64_t now_ps, int32_t out, hwcc_packet *pkt,
                 const hwcc_queue *q,
                 hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen);
/* NP: a data packet of the flow arrives (with its ce mark). */
int hwcc_receive(hwcc_part *p, int64_t now_ps, const hwcc_packet *pkt,
                 hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen);
/* SW: a data packet comes in through port in, before it joins a queue. */
int hwcc_arrive(hwcc_part *p, int64_t now_ps, int32_t in, const hwcc_packet *pkt,
                hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen);
/* SW: PFC paused (paused = 1) or resumed (0) priority prio (0..7) of
 * egress port out. */
int hwcc_pause(hwcc_part *p, int64_t now_ps, int32_t out, uint8_t prio, int paused,
               hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen);
/* SW: a control message addressed to the switch comes in through port in
 * (-1: sent by the switch itself). */
int hwcc_message(hwcc_part *p, int64_t now_ps, int32_t in, const hwcc_feedback_t *f,
                 hwcc_action *acts, size_t cap, size_t *n, char *err, size_t errlen);

/* Reads. */

/* The earliest time (ps) at which hwcc_timer has work, HWCC_NO_DEADLINE
 * when no timer runs, or a negative error code (HWCC_E_HANDLE,
 * HWCC_E_BUSY). */
int64_t hwcc_next_deadline(hwcc_part *p);

/* RP: the pacing rate and window in force now, read after every event.
 * HWCC_E_ROLE for a part that is not a reaction point. */
int hwcc_limits(hwcc_part *p, hwcc_limits_t *out);

/* The part's register snapshot, always in the same order: writes the
 * first min(cap, count) registers to regs (NULL when cap is 0) and the
 * count to *n (n may be NULL); returns 0, or HWCC_E_TRUNCATED when the
 * count exceeds cap. */
int hwcc_registers(hwcc_part *p, hwcc_register *regs, size_t cap, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* HWCC_H */
