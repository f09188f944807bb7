//go:build ignore

// (The constraint above keeps the go tool from taking this C++ file as part
// of package ns3mpi_test, which has no cgo.)

// hwcc-clos.cc: hwcc's congestion-control parts, through the C ABI
// (capi/hwcc.h), in an ns-3 simulation of a 3-tier Clos (or k-ary fat tree)
// that runs on one process or split across MPI ranks, one group of pods
// (with their hosts) and a share of the core switches per rank.
//
// Every switch egress port runs the algorithm's congestion point on its
// data queue; every flow's sender runs its reaction point and its receiver
// its notification point. Everything between nodes travels as a frame on
// an ns-3 point-to-point link (data, ACKs, CNPs, a congestion point's
// messages), so what crosses a rank boundary crosses it as an MPI message
// of ns-3's distributed simulator. The network model is hwcc's harness's
// (harness/doc.go): RoCEv2 frame sizes with preamble and inter-frame gap,
// store-and-forward switches with strict priority of control frames over
// data, per-flow ECMP with the harness's hash and salts, NICs that serve
// control frames first and then their active flows round robin, paced at
// min(offered, line rate, the reaction point's rate), and a receiver that
// ACKs every packet. README.md gives the correspondence and the
// differences.
//
// Ties. Events at the same picosecond at one node are collected and run in
// one canonical order (by the time the harness would have scheduled them:
// an arrival when its transmission started, a timer when it was armed; then
// arrivals by port, then the node's own events in the order it scheduled
// them), not in the order the simulator happens to hold them: a frame from another rank is inserted into the event list at a
// different moment than in a sequential run, and without this the order of
// two arrivals at the same instant (and so queue order, marks and
// completion times) depends on the number of ranks.
//
// Output (rank 0): `config`, `ranks` (nodes per rank), `path` lines with
// --paths, one `flow` line per flow (its completion time in ps),
// `counters` (frames and part events, summed over ranks), `done`,
// `node_events`, one `rank` line per rank (simulator events, wall and CPU
// seconds of Simulator::Run) and `wall_seconds` (the longest rank's).

#include "hwcc.h"

#include "ns3/core-module.h"
#include "ns3/mpi-interface.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace {

// hwcc's frame sizes (harness/packet.go): a data frame is 62 bytes of
// headers plus its payload, an ACK 66, a CNP or a congestion point's
// message 78; each also takes 20 bytes of preamble, delimiter and
// inter-frame gap on the wire.
constexpr int64_t kPreamble = 20;
constexpr int64_t kDataOverhead = 62;
constexpr int64_t kAckFrame = 66;
constexpr int64_t kCnpFrame = 78;
// ns-3's point-to-point device adds a 2-byte PPP header to every packet.
constexpr int64_t kPpp = 2;
// The frame header this program writes into every packet (FrameHeader).
constexpr uint32_t kHeaderBytes = 60;
constexpr uint8_t kDataPrio = 3;
constexpr uint8_t kControlPrio = 7;
constexpr int64_t kMaxTime = INT64_MAX;
// The ECMP salts' generator: rand.NewPCG(seed, this) (harness/run.go).
constexpr uint64_t kSeedStream = 0x9e3779b97f4a7c15ULL;

bool gMpi = false;

[[noreturn]] void Die(const std::string &msg) {
    std::fprintf(stderr, "hwcc-clos: %s\n", msg.c_str());
    if (gMpi) MPI_Abort(MPI_COMM_WORLD, 1);
    std::exit(1);
}

int64_t NowPs() { return Simulator::Now().GetPicoSeconds(); }

double CpuSeconds() {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Ser is units.SerializationTime: ceil(8·n·10^12 / r) ps.
int64_t Ser(int64_t n, int64_t r) {
    if (n <= 0) return 0;
    if (r <= 0) return kMaxTime;
    unsigned __int128 num = (unsigned __int128)n * 8000000000000ULL;
    unsigned __int128 q = num / (uint64_t)r;
    if (num % (uint64_t)r) q++;
    if (q > (unsigned __int128)INT64_MAX) return kMaxTime;
    return int64_t(q);
}

int64_t SatAdd(int64_t a, int64_t b) {
    int64_t s;
    if (__builtin_add_overflow(a, b, &s)) return kMaxTime;
    return s;
}

// Pcg is Go's math/rand/v2 PCG (128-bit LCG, DXSM output), the harness's
// random source, so that the switches' ECMP salts are the harness's.
struct Pcg {
    uint64_t hi, lo;
    uint64_t Uint64() {
        const uint64_t mulHi = 2549297995355413924ULL, mulLo = 4865540595714422341ULL;
        const uint64_t incHi = 6364136223846793005ULL, incLo = 1442695040888963407ULL;
        unsigned __int128 m = (unsigned __int128)lo * mulLo;
        uint64_t h = uint64_t(m >> 64), l = uint64_t(m);
        h += hi * mulLo + lo * mulHi;
        unsigned __int128 s = (unsigned __int128)l + incLo;
        l = uint64_t(s);
        h += incHi + uint64_t(s >> 64);
        lo = l;
        hi = h;
        uint64_t x = h;
        x ^= x >> 32;
        x *= 0xda942042e4dd58b5ULL;
        x ^= x >> 48;
        x *= (l | 1);
        return x;
    }
};

// Mix64 is the splitmix64 finaliser (the harness's ECMP hash).
uint64_t Mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

// ---- Topology -------------------------------------------------------------

struct PortInfo {
    uint32_t peer = 0, peerPort = 0;
    int64_t rate = 0, delay = 0;
};

struct NodeInfo {
    std::string name;
    bool host = false;
    uint32_t rank = 0;
    uint16_t swId = 0;     // switches: index among switches + 1
    uint64_t salt = 0;     // switches: ECMP salt
    uint32_t firstCp = 0;  // switches: the congestion-point ID of port 0
    uint32_t edge = 0;     // hosts: their switch
    std::vector<PortInfo> ports;
};

// Net is the Clos as the harness builds it (harness/topology_clos.go): the
// same node IDs, port numbers, ECMP sets and salts.
struct Net {
    int pods = 2, torsPerPod = 2, aggsPerPod = 2, cores = 2, hostsPerTor = 4;
    int64_t hostRate = 100000000000LL, fabricRate = 100000000000LL, delay = 1000000;
    std::string torName = "tor";

    std::vector<NodeInfo> nodes;
    std::vector<uint32_t> hosts; // node IDs of h0, h1, ...
    struct Link {
        uint32_t a, pa, b, pb;
    };
    std::vector<Link> links; // in the order Connect made them
    uint32_t nSwitches = 0;
    std::vector<int> edgeIdx;                          // per node: index among edge switches, or -1
    std::vector<std::vector<std::vector<uint32_t>>> toEdge; // [switch][edge index]: ECMP ports

    uint32_t AddNode(const std::string &name, bool host) {
        NodeInfo n;
        n.name = name;
        n.host = host;
        if (!host) n.swId = uint16_t(++nSwitches & 0xFFF);
        nodes.push_back(n);
        uint32_t id = uint32_t(nodes.size() - 1);
        if (host) hosts.push_back(id);
        return id;
    }

    void Connect(uint32_t a, uint32_t b, int64_t rate) {
        PortInfo pa, pb;
        pa.peer = b;
        pa.peerPort = uint32_t(nodes[b].ports.size());
        pb.peer = a;
        pb.peerPort = uint32_t(nodes[a].ports.size());
        pa.rate = pb.rate = rate;
        pa.delay = pb.delay = delay;
        links.push_back({a, pb.peerPort, b, pa.peerPort});
        nodes[a].ports.push_back(pa);
        nodes[b].ports.push_back(pb);
    }

    void Build(uint64_t seed) {
        int nt = pods * torsPerPod, na = pods * aggsPerPod;
        std::vector<uint32_t> tors, aggs, cs;
        for (int i = 0; i < nt; i++) tors.push_back(AddNode(torName + std::to_string(i), false));
        for (int i = 0; i < na; i++) aggs.push_back(AddNode("agg" + std::to_string(i), false));
        for (int i = 0; i < cores; i++) cs.push_back(AddNode("core" + std::to_string(i), false));
        for (int i = 0; i < nt; i++) {
            for (int j = 0; j < hostsPerTor; j++) {
                uint32_t h = AddNode("h" + std::to_string(i * hostsPerTor + j), true);
                Connect(h, tors[i], hostRate);
                nodes[h].edge = tors[i];
            }
        }
        for (int i = 0; i < nt; i++) {
            int pod = i / torsPerPod;
            for (int a = pod * aggsPerPod; a < (pod + 1) * aggsPerPod; a++)
                Connect(tors[i], aggs[a], fabricRate);
        }
        int w = cores / aggsPerPod;
        for (int i = 0; i < na; i++) {
            int j = i % aggsPerPod;
            for (int c = j * w; c < (j + 1) * w; c++) Connect(aggs[i], cs[c], fabricRate);
        }
        // Congestion-point IDs: every switch port in node order.
        uint32_t cp = 0;
        for (auto &n : nodes) {
            if (n.host) continue;
            n.firstCp = cp;
            cp += uint32_t(n.ports.size());
        }
        // Salts: the run's generator's first draws, one per switch in node
        // order (harness/run.go, buildSwitches).
        Pcg g{seed, kSeedStream};
        for (auto &n : nodes)
            if (!n.host) n.salt = g.Uint64();
        BuildRoutes();
    }

    // BuildRoutes fills the ECMP sets as the harness does (harness/link.go,
    // buildRoutes): toward a host behind edge switch E, a switch may use any
    // port whose peer is a switch one hop closer to E.
    void BuildRoutes() {
        size_t nn = nodes.size();
        edgeIdx.assign(nn, -1);
        std::vector<uint32_t> edges;
        for (uint32_t h : hosts) {
            uint32_t e = nodes[h].edge;
            if (edgeIdx[e] < 0) {
                edgeIdx[e] = int(edges.size());
                edges.push_back(e);
            }
        }
        toEdge.assign(nn, std::vector<std::vector<uint32_t>>(edges.size()));
        std::vector<int> dist(nn);
        for (size_t ei = 0; ei < edges.size(); ei++) {
            std::fill(dist.begin(), dist.end(), -1);
            std::deque<uint32_t> q{edges[ei]};
            dist[edges[ei]] = 0;
            while (!q.empty()) {
                uint32_t n = q.front();
                q.pop_front();
                for (auto &p : nodes[n].ports) {
                    if (nodes[p.peer].host || dist[p.peer] >= 0) continue;
                    dist[p.peer] = dist[n] + 1;
                    q.push_back(p.peer);
                }
            }
            for (uint32_t n = 0; n < nn; n++) {
                if (nodes[n].host || n == edges[ei] || dist[n] < 0) continue;
                for (uint32_t k = 0; k < nodes[n].ports.size(); k++) {
                    uint32_t peer = nodes[n].ports[k].peer;
                    if (!nodes[peer].host && dist[peer] >= 0 && dist[peer] == dist[n] - 1)
                        toEdge[n][ei].push_back(k);
                }
            }
        }
    }

    // Route is the harness's ecmpPort: the egress port of switch sw for a
    // frame of flow from src to dst.
    uint32_t Route(uint32_t sw, uint32_t flow, uint32_t src, uint32_t dst) const {
        uint32_t e = nodes[dst].edge;
        if (sw == e) return nodes[dst].ports[0].peerPort;
        const auto &c = toEdge[sw][edgeIdx[e]];
        if (c.empty()) Die("switch " + nodes[sw].name + " cannot reach " + nodes[dst].name);
        if (c.size() == 1) return c[0];
        uint64_t h = Mix64(uint64_t(dst) ^ nodes[sw].salt);
        h = Mix64((uint64_t(flow) | (uint64_t(src) << 32)) ^ h);
        return c[h % c.size()];
    }

    // Path returns the switches and egress ports a frame of flow from src
    // to dst crosses, and its links' rates and delays (the source's first).
    void Path(uint32_t flow, uint32_t src, uint32_t dst, std::vector<std::pair<uint32_t, uint32_t>> *hops,
              std::vector<std::pair<int64_t, int64_t>> *links) const {
        const PortInfo *p = &nodes[src].ports[0];
        for (size_t guard = 0; guard <= nodes.size(); guard++) {
            links->push_back({p->rate, p->delay});
            uint32_t n = p->peer;
            if (n == dst || nodes[n].host) return;
            uint32_t out = Route(n, flow, src, dst);
            if (hops) hops->push_back({n, out});
            p = &nodes[n].ports[out];
        }
    }
};

// ---- Frames ---------------------------------------------------------------

enum FrameKind : uint8_t { kData = 1, kAck = 2, kNak = 3, kCnp = 4, kFeedback = 5 };

// Frame is one frame as the harness sees it (harness/packet.go).
struct Frame {
    uint8_t kind = 0, prio = 0, fbKind = 0;
    bool ce = false, ece = false;
    uint32_t flow = 0, src = 0, dst = 0;
    uint64_t seq = 0;
    int64_t payload = 0;
    int64_t size = 0;   // wire bytes, preamble and gap included
    int64_t sentAt = 0; // data: when it left the sender; ACK: the data's
    uint16_t ackPkts = 0, ackMarked = 0;
    uint8_t hdr[16] = {0}; // data: the algorithm's header bytes; feedback: its data
    uint64_t from = 0;     // feedback: its sender's identity
};

// FrameHeader carries a Frame's fields in kHeaderBytes bytes at the front
// of every packet; the rest of the packet is padding up to the frame's
// size, so that ns-3 serialises it for as long as hwcc's frame takes.
class FrameHeader : public Header {
  public:
    Frame f;
    static TypeId GetTypeId() {
        static TypeId tid =
            TypeId("hwcc::FrameHeader").SetParent<Header>().AddConstructor<FrameHeader>();
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    uint32_t GetSerializedSize() const override { return kHeaderBytes; }
    void Serialize(Buffer::Iterator i) const override {
        i.WriteU8(f.kind);
        i.WriteU8(f.prio);
        i.WriteU8(uint8_t((f.ce ? 1 : 0) | (f.ece ? 2 : 0)));
        i.WriteU8(f.fbKind);
        i.WriteU32(f.flow);
        i.WriteU32(f.src);
        i.WriteU32(f.dst);
        i.WriteU64(f.seq);
        // A data frame's payload, or an ACK's packet and mark counts.
        i.WriteU32(f.kind == kData ? uint32_t(f.payload) : (uint32_t(f.ackPkts) << 16 | f.ackMarked));
        i.WriteU64(uint64_t(f.sentAt));
        i.Write(f.hdr, 16);
        i.WriteU64(f.from);
    }
    uint32_t Deserialize(Buffer::Iterator i) override {
        f.kind = i.ReadU8();
        f.prio = i.ReadU8();
        uint8_t flags = i.ReadU8();
        f.ce = flags & 1;
        f.ece = flags & 2;
        f.fbKind = i.ReadU8();
        f.flow = i.ReadU32();
        f.src = i.ReadU32();
        f.dst = i.ReadU32();
        f.seq = i.ReadU64();
        uint32_t v = i.ReadU32();
        if (f.kind == kData) {
            f.payload = v;
        } else {
            f.payload = 0;
            f.ackPkts = uint16_t(v >> 16);
            f.ackMarked = uint16_t(v);
        }
        f.sentAt = int64_t(i.ReadU64());
        i.Read(f.hdr, 16);
        f.from = i.ReadU64();
        return kHeaderBytes;
    }
    void Print(std::ostream &os) const override {
        os << "kind=" << int(f.kind) << " flow=" << f.flow << " seq=" << f.seq;
    }
};

// ---- Parts ----------------------------------------------------------------

uint64_t gPartErrors = 0;

// Part is one hwcc part: it runs events and keeps their actions.
class Part {
  public:
    Part(const char *algo, const char *name, const std::string &settings, const hwcc_env &env) {
        char err[256];
        int rc = hwcc_part_new(algo, name, settings.c_str(), &env, &p_, err, sizeof err);
        if (rc != HWCC_OK)
            Die(std::string("hwcc_part_new ") + algo + "/" + name + ": " + hwcc_strerror(rc) + " (" + err + ")");
        acts.resize(8);
    }
    ~Part() { hwcc_part_free(p_); }
    Part(const Part &) = delete;
    Part &operator=(const Part &) = delete;

    hwcc_part *get() const { return p_; }
    std::vector<hwcc_action> acts;
    size_t n = 0;

    // Call runs ev(acts, cap, &n, err, errlen), growing the action array
    // when the event's actions do not fit (the event changed nothing). A
    // refused event is counted and reported, and the run goes on, as in
    // hwcc's harness (Report.Errors).
    template <class F> bool Call(const char *what, F ev) {
        for (;;) {
            char err[256];
            n = 0;
            int rc = ev(acts.data(), acts.size(), &n, err, sizeof err);
            if (rc == HWCC_E_ACTIONS_FULL && acts.size() < HWCC_MAX_ACTIONS) {
                acts.resize(acts.size() * 4);
                continue;
            }
            if (rc != HWCC_OK) {
                if (gPartErrors++ < 10)
                    std::fprintf(stderr, "hwcc-clos: t=%" PRId64 "ps %s: %s (%s)\n", NowPs(), what,
                                 hwcc_strerror(rc), err);
                n = 0;
                return false;
            }
            return true;
        }
    }

    int64_t Deadline() const {
        int64_t d = hwcc_next_deadline(p_);
        if (d < 0) Die("hwcc_next_deadline failed");
        return d;
    }

  private:
    hwcc_part *p_ = nullptr;
};

hwcc_packet ToPacket(const Frame &f) {
    hwcc_packet p;
    std::memset(&p, 0, sizeof p);
    p.flow = f.flow;
    p.src = f.src;
    p.dst = f.dst;
    p.seq = f.seq;
    p.payload = f.payload;
    p.size = f.size;
    p.prio = f.prio;
    p.ce = f.ce ? 1 : 0;
    std::memcpy(p.hdr, f.hdr, 16);
    return p;
}

// Algorithm is what the program needs to know of an algorithm's
// deployment (its cc.Deployment in algos/): the C ABI builds parts but
// does not describe deployments.
struct Algorithm {
    const char *name;
    const char *cp, *rp, *np; // nullptr: none
    int64_t reactionPs;       // the NIC's delay before the rp sees a CNP or message
    bool noAcks;              // the rp is not handed ACKs
};

const Algorithm kAlgorithms[] = {
    // algos/dcqcn.go: cp + np + rp, NoAcks; no reaction delay.
    {"dcqcn", "cp", "rp", "np", 0, true},
    // algos/rocc.go: cp + rp, the rp behind the NIC's 15 µs reaction delay.
    {"rocc", "cp", "rp", nullptr, 15000000, false},
};

// ---- Simulation state ----------------------------------------------------

struct FlowDef {
    uint32_t id = 0, src = 0, dst = 0; // node IDs
    int64_t size = 0, start = 0;
};

// Slot is the harness's timerSlot: one pending event at the earliest
// deadline asked for.
struct Slot {
    int64_t at = kMaxTime;
    bool Want(int64_t d) {
        if (d == kMaxTime || d >= at) return false;
        at = d;
        return true;
    }
    void Fired(int64_t now) {
        if (now >= at) at = kMaxTime;
    }
};

struct TxFlow {
    const FlowDef *def = nullptr;
    Part *rp = nullptr;
    int64_t cap = 0, line = 0, rate = 0, window = 0;
    bool started = false, done = false;
    int activeIdx = -1;
    uint64_t sndNxt = 0, sndUna = 0, sndMax = 0;
    int64_t nextSend = 0, lastStart = 0, lastSize = 0;
    int64_t finishAt = -1;
    Slot rpTimer;
    std::deque<std::pair<int64_t, hwcc_feedback_t>> pending; // feedback waiting out the reaction delay
};

struct RxFlow {
    Part *np = nullptr;
    uint64_t rcvNxt = 0;
    bool nakSent = false;
    int sinceAck = 0, markedSince = 0;
    Slot npTimer;
};

// Counters are summed over ranks at the end: frames the hosts sent by kind,
// the switches' messages, every frame's transmissions over every link
// (the harness's FrameHops), CE marks, messages handed to reaction
// points, and node events (items run).
struct Counters {
    uint64_t dataSent = 0, ackSent = 0, cnpSent = 0, feedbackSent = 0, frameHops = 0, marks = 0,
             rpFeedback = 0, items = 0;
};

struct Engine;

struct Port {
    Engine *e = nullptr;
    uint32_t num = 0;
    Ptr<PointToPointNetDevice> dev;
    std::deque<Frame> ctrl, data;
    int64_t dataBytes = 0, rate = 0, maxData = 0;
    uint64_t txBytes = 0;
    int64_t txStart = 0, delay = 0; // the frame on the wire started at txStart; the link's delay
    uint64_t txSeq = 0;             // the node's item count when it started
    bool busy = false;
    Part *cp = nullptr;
    Slot cpTimer, wake;
};

enum ItemKind : uint8_t { kArrive, kTxDone, kCpTimer, kNpTimer, kRpTimer, kWake, kStartTx, kStartRx };

// Item is one event of a node: what it is (kind: a frame's arrival through
// port idx, the end of port idx's transmission, the timer of port idx's
// congestion point or flow idx's parts, a flow's start) and when the
// harness would have scheduled it (ins: the arrival's transmission start,
// the time the timer was armed, 0 for a flow's start), its sort key.
struct Item {
    int64_t ins;
    uint64_t key;
    uint8_t kind;
    uint32_t idx;
    Frame frame;
};

// Engine is one local node: its ports, and for a host its active flows.
struct Engine {
    uint32_t node = 0;
    bool host = false;
    std::vector<Port> ports;
    std::vector<TxFlow *> active;
    size_t rr = 0;
    std::vector<Item> pending;
    bool scheduled = false;
    uint64_t seq = 0; // items scheduled so far (Key)
};

struct Sim {
    Net net;
    const Algorithm *algo = nullptr;
    std::string cpSettings, rpSettings, npSettings;
    int64_t payload = 1000;
    int ackEvery = 1;
    std::vector<FlowDef> flows;
    std::vector<Engine *> engines; // by node ID; nullptr: not on this rank
    std::vector<TxFlow> tx;
    std::vector<RxFlow> rx;
    Counters ctr;
};

Sim gSim;

void Drain(Engine *e);

// gCanonical: run a node's items of one instant in canonical order (Drain);
// off (--canonical=0), each runs when its ns-3 event does, in whatever
// order the simulator holds them (to show what the order changes). Off, a
// transmission's end starts the next frame from inside the device's
// PhyTxEnd trace, which leaves the device's current-packet pointer null
// during that frame: harmless in the release build build-ns3.sh makes
// (the device only asserts on it), an assertion failure in a debug one.
bool gCanonical = true;

void Handle(Engine *e, Item &it);

void Post(Engine *e, Item it) {
    if (!gCanonical) {
        gSim.ctr.items++;
        Handle(e, it);
        return;
    }
    e->pending.push_back(std::move(it));
    if (!e->scheduled) {
        e->scheduled = true;
        Simulator::ScheduleNow(&Drain, e);
    }
}

// Key orders the items of one instant that were scheduled at the same time:
// arrivals first, by port; then the node's own items in the order it
// scheduled them (seq, the node's count of items scheduled).
uint64_t Key(uint8_t kind, uint64_t seqOrPort) { return (kind == kArrive ? 0 : uint64_t(1) << 62) | seqOrPort; }

void PostTimer(Engine *e, uint8_t kind, uint32_t idx, int64_t ins, uint64_t seq) {
    Item it;
    it.ins = ins;
    it.key = Key(kind, seq);
    it.kind = kind;
    it.idx = idx;
    Post(e, std::move(it));
}

// Arm schedules a timer item at deadline d (the harness's want: only an
// earlier deadline needs a new event).
void Arm(Engine *e, Slot &s, int64_t d, uint8_t kind, uint32_t idx) {
    int64_t now = NowPs();
    if (d < now) d = now;
    if (!s.Want(d)) return;
    Simulator::Schedule(PicoSeconds(d - now), &PostTimer, e, kind, idx, now, e->seq++);
}

void Kick(Engine *e, Port &pt);

void Transmit(Port &pt, const Frame &f) {
    pt.txBytes += uint64_t(f.size);
    pt.txStart = NowPs();
    pt.txSeq = pt.e->seq++;
    pt.busy = true;
    Counters &c = gSim.ctr;
    c.frameHops++;
    if (f.src == pt.e->node) {
        switch (f.kind) {
        case kData: c.dataSent++; break;
        case kAck:
        case kNak: c.ackSent++; break;
        case kCnp: c.cnpSent++; break;
        default: c.feedbackSent++; break;
        }
    }
    int64_t pad = f.size - kPreamble - kPpp - int64_t(kHeaderBytes);
    if (pad < 0) Die("frame smaller than the header");
    Ptr<Packet> p = Create<Packet>(uint32_t(pad));
    FrameHeader h;
    h.f = f;
    p->AddHeader(h);
    if (!pt.dev->Send(p, pt.dev->GetBroadcast(), 0x0800)) Die("device refused a frame");
}

// ---- Switches -------------------------------------------------------------

hwcc_queue QueueOf(const Port &pt) {
    hwcc_queue q;
    std::memset(&q, 0, sizeof q);
    q.len = pt.dataBytes;
    q.rate = pt.rate;
    q.tx_bytes = pt.txBytes;
    return q;
}

void SwitchEnqueue(Engine *e, Port &out, Frame f);

// SendFeedback sends a congestion point's message from switch e to the
// flow's source (harness/switch.go, sendFeedback).
void SendFeedback(Engine *e, const hwcc_feedback_t &fb) {
    if (fb.flow >= gSim.flows.size()) {
        gPartErrors++;
        return;
    }
    const FlowDef &d = gSim.flows[fb.flow];
    if (d.start > NowPs()) return; // not started: the harness sends nothing
    Frame f;
    f.kind = kFeedback;
    f.prio = kControlPrio;
    f.flow = fb.flow;
    f.src = e->node;
    f.dst = d.src;
    f.fbKind = fb.kind;
    f.from = fb.from;
    f.seq = fb.seq;
    std::memcpy(f.hdr, fb.data, 16);
    f.size = kCnpFrame + kPreamble;
    uint32_t out = gSim.net.Route(e->node, fb.flow, e->node, d.src);
    SwitchEnqueue(e, e->ports[out], f);
}

void ApplyCP(Engine *e, Part *cp, Frame *f) {
    for (size_t i = 0; i < cp->n; i++) {
        const hwcc_action &a = cp->acts[i];
        if (a.kind == HWCC_ACT_MARK_CE && f) {
            if (!f->ce) gSim.ctr.marks++;
            f->ce = true;
        } else if (a.kind == HWCC_ACT_FEEDBACK && a.to == HWCC_TO_SOURCE) {
            SendFeedback(e, a.feedback);
        } else {
            gPartErrors++;
        }
    }
}

void ArmCP(Engine *e, Port &pt) {
    if (pt.cp) Arm(e, pt.cpTimer, pt.cp->Deadline(), kCpTimer, pt.num);
}

void SwitchEnqueue(Engine *e, Port &out, Frame f) {
    if (f.prio == kControlPrio) {
        out.ctrl.push_back(f);
    } else {
        out.data.push_back(f);
        out.dataBytes += f.size;
        out.maxData = std::max(out.maxData, out.dataBytes);
        if (f.kind == kData && out.cp) {
            Frame &q = out.data.back();
            hwcc_packet pkt = ToPacket(q);
            hwcc_queue qs = QueueOf(out);
            int64_t now = NowPs();
            if (out.cp->Call("cp enqueue", [&](hwcc_action *a, size_t cap, size_t *n, char *er, size_t el) {
                    return hwcc_enqueue(out.cp->get(), now, 0, &pkt, &qs, a, cap, n, er, el);
                }))
                ApplyCP(e, out.cp, &q);
            ArmCP(e, out);
        }
    }
    Kick(e, out);
}

void SwitchKick(Engine *e, Port &pt) {
    Frame f;
    if (!pt.ctrl.empty()) {
        f = pt.ctrl.front();
        pt.ctrl.pop_front();
        Transmit(pt, f);
        return;
    }
    if (pt.data.empty()) return;
    f = pt.data.front();
    pt.data.pop_front();
    pt.dataBytes -= f.size;
    pt.busy = true;
    if (f.kind == kData && pt.cp) {
        hwcc_packet pkt = ToPacket(f);
        hwcc_queue qs = QueueOf(pt);
        int64_t now = NowPs();
        if (pt.cp->Call("cp dequeue", [&](hwcc_action *a, size_t cap, size_t *n, char *er, size_t el) {
                return hwcc_dequeue(pt.cp->get(), now, 0, &pkt, &qs, a, cap, n, er, el);
            })) {
            std::memcpy(f.hdr, pkt.hdr, 16);
            ApplyCP(e, pt.cp, &f);
        }
        ArmCP(e, pt);
    }
    Transmit(pt, f);
}

void SwitchReceive(Engine *e, const Frame &f) {
    uint32_t out = gSim.net.Route(e->node, f.flow, f.src, f.dst);
    SwitchEnqueue(e, e->ports[out], f);
}

// ---- Hosts ----------------------------------------------------------------

// RPRate is min(offered, line rate, the part's pacing rate).
int64_t RPRate(TxFlow &f) {
    hwcc_limits_t l;
    std::memset(&l, 0, sizeof l);
    if (hwcc_limits(f.rp->get(), &l) != HWCC_OK) Die("hwcc_limits failed");
    if (l.rate == 0 || l.rate > f.cap) return f.cap;
    return l.rate;
}

int64_t RPWindow(TxFlow &f) {
    hwcc_limits_t l;
    std::memset(&l, 0, sizeof l);
    if (hwcc_limits(f.rp->get(), &l) != HWCC_OK) Die("hwcc_limits failed");
    if (l.credited) Die("credit-gated reaction points are not modelled");
    return l.window;
}

int64_t RPDeadline(TxFlow &f) {
    int64_t d = f.rp->Deadline();
    if (!f.pending.empty()) d = std::min(d, f.pending.front().first);
    return d;
}

void RPCall(TxFlow &f, int64_t at, const hwcc_feedback_t &fb) {
    gSim.ctr.rpFeedback++;
    f.rp->Call("rp feedback", [&](hwcc_action *a, size_t cap, size_t *n, char *er, size_t el) {
        return hwcc_feedback(f.rp->get(), at, &fb, a, cap, n, er, el);
    });
    if (f.rp->n > 0) gPartErrors += f.rp->n; // no rp of the table sends messages
}

// Deliver hands the rp every delayed message due by now, each at its time.
void Deliver(TxFlow &f, int64_t now) {
    while (!f.pending.empty() && f.pending.front().first <= now) {
        auto e = f.pending.front();
        f.pending.pop_front();
        RPCall(f, e.first, e.second);
    }
}

// RPFeedback hands fb to the rp now, or after the reaction delay (CNPs and
// messages; ACKs at once), as the harness's schemeRP.feedback.
void RPFeedback(TxFlow &f, const hwcc_feedback_t &fb) {
    int64_t now = NowPs();
    Deliver(f, now);
    if (gSim.algo->reactionPs == 0 || fb.kind == HWCC_FB_ACK || fb.kind == HWCC_FB_NAK) {
        RPCall(f, now, fb);
        return;
    }
    f.pending.push_back({now + gSim.algo->reactionPs, fb});
}

void ApplyRP(TxFlow &f) {
    Engine *e = gSim.engines[f.def->src];
    Port &pt = e->ports[0];
    int64_t r = RPRate(f);
    if (r != f.rate) {
        if (r < 0) r = 0;
        f.rate = r;
        if (f.lastSize > 0) f.nextSend = SatAdd(f.lastStart, Ser(f.lastSize, r));
        Kick(e, pt);
    }
    int64_t w = RPWindow(f);
    if (w != f.window) {
        bool opened = w == 0 || w > f.window;
        f.window = std::max<int64_t>(w, 0);
        if (opened) Kick(e, pt);
    }
    Arm(e, f.rpTimer, RPDeadline(f), kRpTimer, f.def->id);
}

bool HasData(const TxFlow &f) { return f.def->size == 0 || f.sndNxt < uint64_t(f.def->size); }

Frame MakeData(TxFlow &f) {
    int64_t pay = gSim.payload;
    if (f.def->size > 0) pay = std::min<int64_t>(pay, int64_t(uint64_t(f.def->size) - f.sndNxt));
    Frame p;
    p.kind = kData;
    p.prio = kDataPrio;
    p.flow = f.def->id;
    p.src = f.def->src;
    p.dst = f.def->dst;
    p.seq = f.sndNxt;
    p.payload = pay;
    p.size = kDataOverhead + pay + kPreamble;
    p.sentAt = NowPs();
    f.sndNxt += uint64_t(pay);
    if (f.sndNxt > f.sndMax) f.sndMax = f.sndNxt;
    f.lastStart = NowPs();
    f.lastSize = p.size;
    f.nextSend = SatAdd(NowPs(), Ser(p.size, f.rate));
    return p;
}

void HostKick(Engine *e, Port &pt) {
    if (!pt.ctrl.empty()) {
        Frame f = pt.ctrl.front();
        pt.ctrl.pop_front();
        Transmit(pt, f);
        return;
    }
    int64_t now = NowPs(), earliest = kMaxTime;
    size_t n = e->active.size();
    for (size_t i = 0; i < n; i++) {
        size_t j = e->rr + i;
        if (j >= n) j -= n;
        TxFlow &f = *e->active[j];
        if (!HasData(f) || (f.window > 0 && int64_t(f.sndNxt - f.sndUna) >= f.window)) continue;
        if (f.nextSend > now) {
            earliest = std::min(earliest, f.nextSend);
            continue;
        }
        e->rr = j + 1;
        if (e->rr >= n) e->rr = 0;
        Frame p = MakeData(f);
        pt.busy = true; // before the rp's hooks, which may kick this port
        Deliver(f, now);
        hwcc_packet pkt = ToPacket(p);
        f.rp->Call("rp sent", [&](hwcc_action *a, size_t cap, size_t *nn, char *er, size_t el) {
            return hwcc_sent(f.rp->get(), now, &pkt, a, cap, nn, er, el);
        });
        std::memcpy(p.hdr, pkt.hdr, 16);
        ApplyRP(f);
        Transmit(pt, p);
        return;
    }
    if (earliest != kMaxTime) Arm(e, pt.wake, earliest, kWake, pt.num);
}

void Kick(Engine *e, Port &pt) {
    if (pt.busy) return;
    if (e->host)
        HostKick(e, pt);
    else
        SwitchKick(e, pt);
}

void HostQueueControl(Engine *e, const Frame &f) {
    Port &pt = e->ports[0];
    pt.ctrl.push_back(f);
    Kick(e, pt);
}

void SendAck(Engine *e, RxFlow &r, const FlowDef &d, const Frame &data, uint8_t kind) {
    Frame a;
    a.kind = kind;
    a.prio = kControlPrio;
    a.flow = d.id;
    a.src = d.dst;
    a.dst = d.src;
    a.seq = r.rcvNxt;
    a.sentAt = data.sentAt;
    a.ece = r.markedSince > 0;
    a.ackPkts = uint16_t(std::min(r.sinceAck, 65535));
    a.ackMarked = uint16_t(std::min(r.markedSince, 65535));
    r.sinceAck = r.markedSince = 0;
    a.size = kAckFrame + kPreamble;
    HostQueueControl(e, a);
}

void SendCNP(Engine *e, const FlowDef &d) {
    Frame c;
    c.kind = kCnp;
    c.prio = kControlPrio;
    c.flow = d.id;
    c.src = d.dst;
    c.dst = d.src;
    c.size = kCnpFrame + kPreamble;
    HostQueueControl(e, c);
}

// NPActions carries out what the np asked for: a CNP to the source.
void NPActions(Engine *e, const FlowDef &d, Part *np) {
    for (size_t i = 0; i < np->n; i++) {
        const hwcc_action &a = np->acts[i];
        if (a.kind == HWCC_ACT_FEEDBACK && a.to == HWCC_TO_SOURCE && a.feedback.kind == HWCC_FB_CNP)
            SendCNP(e, d);
        else
            gPartErrors++;
    }
}

void ArmNP(Engine *e, RxFlow &r, uint32_t id) {
    if (r.np) Arm(e, r.npTimer, r.np->Deadline(), kNpTimer, id);
}

void ReceiveData(Engine *e, const Frame &p) {
    const FlowDef &d = gSim.flows[p.flow];
    RxFlow &r = gSim.rx[p.flow];
    int64_t now = NowPs();
    if (r.np) {
        hwcc_packet pkt = ToPacket(p);
        if (r.np->Call("np receive", [&](hwcc_action *a, size_t cap, size_t *n, char *er, size_t el) {
                return hwcc_receive(r.np->get(), now, &pkt, a, cap, n, er, el);
            }))
            NPActions(e, d, r.np);
        ArmNP(e, r, d.id);
    }
    if (p.seq == r.rcvNxt) {
        r.rcvNxt += uint64_t(p.payload);
        r.nakSent = false;
        r.sinceAck++;
        if (p.ce) r.markedSince++;
        bool last = d.size > 0 && r.rcvNxt >= uint64_t(d.size);
        if (r.sinceAck >= gSim.ackEvery || last) SendAck(e, r, d, p, kAck);
    } else if (p.seq > r.rcvNxt) {
        if (!r.nakSent) {
            r.nakSent = true;
            SendAck(e, r, d, p, kNak);
        }
    } else {
        SendAck(e, r, d, p, kAck);
    }
}

void Deactivate(Engine *e, TxFlow &f) {
    int i = f.activeIdx;
    if (i < 0) return;
    size_t last = e->active.size() - 1;
    e->active[i] = e->active[last];
    e->active[i]->activeIdx = i;
    e->active.pop_back();
    f.activeIdx = -1;
    if (e->rr > last) e->rr = 0;
}

void ReceiveAck(Engine *e, const Frame &p) {
    TxFlow &f = gSim.tx[p.flow];
    if (f.done || !f.rp) return;
    uint64_t newly = 0;
    if (p.seq > f.sndUna) {
        newly = p.seq - f.sndUna;
        f.sndUna = p.seq;
        if (f.sndNxt < f.sndUna) f.sndNxt = f.sndUna;
    }
    if (p.kind == kNak && p.seq < f.sndNxt) {
        f.sndNxt = p.seq;
        Kick(e, e->ports[0]);
    }
    bool done = f.def->size > 0 && f.sndUna >= uint64_t(f.def->size);
    if (!gSim.algo->noAcks) {
        hwcc_feedback_t fb;
        std::memset(&fb, 0, sizeof fb);
        fb.kind = p.kind == kNak ? HWCC_FB_NAK : HWCC_FB_ACK;
        fb.ece = p.ece ? 1 : 0;
        fb.flow = p.flow;
        fb.seq = p.seq;
        fb.acked = int64_t(newly);
        fb.snd_nxt = f.sndNxt;
        RPFeedback(f, fb);
    }
    if (done) {
        f.done = true;
        f.finishAt = NowPs();
        Deactivate(e, f);
        return;
    }
    ApplyRP(f);
    if (newly > 0 && f.window > 0) Kick(e, e->ports[0]);
}

void HostReceive(Engine *e, const Frame &p) {
    switch (p.kind) {
    case kData: ReceiveData(e, p); break;
    case kAck:
    case kNak: ReceiveAck(e, p); break;
    case kCnp:
    case kFeedback: {
        if (p.flow >= gSim.flows.size() || gSim.flows[p.flow].src != e->node) {
            gPartErrors++; // a message for a flow's receiver: no algorithm of the table sends one
            break;
        }
        TxFlow &f = gSim.tx[p.flow];
        if (!f.rp || f.done) break;
        hwcc_feedback_t fb;
        std::memset(&fb, 0, sizeof fb);
        fb.kind = p.kind == kCnp ? HWCC_FB_CNP : p.fbKind;
        fb.flow = p.flow;
        fb.from = p.from;
        fb.seq = p.seq;
        std::memcpy(fb.data, p.hdr, 16);
        RPFeedback(f, fb);
        ApplyRP(f);
        break;
    }
    }
}

hwcc_env FlowEnv(const FlowDef &d) {
    hwcc_env env;
    std::memset(&env, 0, sizeof env);
    std::vector<std::pair<int64_t, int64_t>> fwd, rev;
    gSim.net.Path(d.id, d.src, d.dst, nullptr, &fwd);
    gSim.net.Path(d.id, d.dst, d.src, nullptr, &rev);
    int64_t full = kDataOverhead + gSim.payload + kPreamble, ack = kAckFrame + kPreamble;
    int64_t rtt = 0, bott = fwd[0].first;
    for (auto &h : fwd) {
        rtt += Ser(full, h.first) + h.second;
        bott = std::min(bott, h.first);
    }
    for (auto &h : rev) rtt += Ser(ack, h.first) + h.second;
    env.rate = gSim.net.nodes[d.src].ports[0].rate;
    env.node = d.src;
    env.base_rtt = rtt;
    env.bottleneck = bott;
    env.hops = int32_t(fwd.size() - 1);
    env.payload = gSim.payload;
    env.size = d.size;
    env.index = int32_t(d.id) + 1;
    return env;
}

void StartTx(Engine *e, uint32_t id) {
    TxFlow &f = gSim.tx[id];
    const FlowDef &d = gSim.flows[id];
    f.def = &d;
    hwcc_env env = FlowEnv(d);
    f.rp = new Part(gSim.algo->name, gSim.algo->rp, gSim.rpSettings, env);
    f.line = env.rate;
    f.cap = env.rate;
    f.started = true;
    f.rate = RPRate(f);
    f.window = std::max<int64_t>(RPWindow(f), 0);
    f.nextSend = NowPs();
    f.activeIdx = int(e->active.size());
    e->active.push_back(&f);
    ApplyRP(f);
    Kick(e, e->ports[0]);
}

void StartRx(Engine *e, uint32_t id) {
    if (!gSim.algo->np) return;
    const FlowDef &d = gSim.flows[id];
    hwcc_env env = FlowEnv(d);
    RxFlow &r = gSim.rx[id];
    r.np = new Part(gSim.algo->name, gSim.algo->np, gSim.npSettings, env);
    ArmNP(e, r, id);
}

void Handle(Engine *e, Item &it) {
    int64_t now = NowPs();
    switch (it.kind) {
    case kArrive:
        if (e->host)
            HostReceive(e, it.frame);
        else
            SwitchReceive(e, it.frame);
        break;
    case kTxDone: {
        Port &pt = e->ports[it.idx];
        pt.busy = false;
        Kick(e, pt);
        break;
    }
    case kCpTimer: {
        Port &pt = e->ports[it.idx];
        pt.cpTimer.Fired(now);
        if (pt.cp && pt.cp->Deadline() <= now) {
            if (pt.cp->Call("cp timer", [&](hwcc_action *a, size_t cap, size_t *n, char *er, size_t el) {
                    return hwcc_timer(pt.cp->get(), now, a, cap, n, er, el);
                }))
                ApplyCP(e, pt.cp, nullptr);
        }
        ArmCP(e, pt);
        break;
    }
    case kNpTimer: {
        RxFlow &r = gSim.rx[it.idx];
        r.npTimer.Fired(now);
        if (!r.np) break;
        if (r.np->Deadline() <= now) {
            if (r.np->Call("np timer", [&](hwcc_action *a, size_t cap, size_t *n, char *er, size_t el) {
                    return hwcc_timer(r.np->get(), now, a, cap, n, er, el);
                }))
                NPActions(e, gSim.flows[it.idx], r.np);
        }
        ArmNP(e, r, it.idx);
        break;
    }
    case kRpTimer: {
        TxFlow &f = gSim.tx[it.idx];
        f.rpTimer.Fired(now);
        if (f.done || !f.rp) break;
        if (RPDeadline(f) <= now) {
            Deliver(f, now);
            if (f.rp->Deadline() <= now)
                f.rp->Call("rp timer", [&](hwcc_action *a, size_t cap, size_t *n, char *er, size_t el) {
                    return hwcc_timer(f.rp->get(), now, a, cap, n, er, el);
                });
        }
        ApplyRP(f);
        break;
    }
    case kWake: {
        Port &pt = e->ports[it.idx];
        pt.wake.Fired(now);
        Kick(e, pt);
        break;
    }
    case kStartTx: StartTx(e, it.idx); break;
    case kStartRx: StartRx(e, it.idx); break;
    }
}

// Drain runs the items of one node at one instant in canonical order: by
// the time the harness would have scheduled each (its events at one
// instant run in the order they were scheduled), then by kind and port or
// flow. Both are the same on every rank, wherever the frames came from.
void Drain(Engine *e) {
    e->scheduled = false;
    std::vector<Item> batch;
    batch.swap(e->pending);
    std::sort(batch.begin(), batch.end(),
              [](const Item &a, const Item &b) { return a.ins != b.ins ? a.ins < b.ins : a.key < b.key; });
    gSim.ctr.items += batch.size();
    for (auto &it : batch) Handle(e, it);
}

bool OnReceive(Engine *e, uint32_t port, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address &) {
    FrameHeader h;
    p->PeekHeader(h);
    Item it;
    it.kind = kArrive;
    it.idx = port;
    it.key = Key(kArrive, port);
    it.frame = h.f;
    it.frame.size = int64_t(p->GetSize()) + kPpp + kPreamble;
    const Port &in = e->ports[port];
    it.ins = NowPs() - Ser(it.frame.size, in.rate) - in.delay;
    Post(e, std::move(it));
    return true;
}

void OnTxEnd(Engine *e, uint32_t port, Ptr<const Packet>) {
    PostTimer(e, kTxDone, port, e->ports[port].txStart, e->ports[port].txSeq);
}

// ---- Workload -------------------------------------------------------------

uint32_t HostByName(const std::string &s) {
    const auto &hs = gSim.net.hosts;
    std::string t = s;
    if (!t.empty() && t[0] == 'h') t = t.substr(1);
    char *end = nullptr;
    long v = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || v < 0 || size_t(v) >= hs.size())
        Die("no host " + s + " (hosts h0..h" + std::to_string(hs.size() - 1) + ")");
    return hs[size_t(v)];
}

void ReadFlows(const std::string &path) {
    std::ifstream in(path);
    if (!in) Die("cannot read " + path);
    std::string line;
    while (std::getline(in, line)) {
        auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        std::istringstream ls(line);
        std::string src, dst;
        long long size = 0, start = 0;
        if (!(ls >> src)) continue;
        if (!(ls >> dst >> size >> start) || size <= 0 || start < 0)
            Die("bad flow line in " + path + ": \"" + line + "\" (want: SRC DST SIZE_BYTES START_PS)");
        FlowDef d;
        d.id = uint32_t(gSim.flows.size());
        d.src = HostByName(src);
        d.dst = HostByName(dst);
        if (d.src == d.dst) Die("flow from " + src + " to itself");
        d.size = size;
        d.start = start;
        gSim.flows.push_back(d);
    }
}

// Generate is the built-in workload: an incast of `incast` senders of the
// upper half of the hosts (the last pods) into h0, then a permutation in
// which host i sends to host (i + H/2) mod H, crossing the Clos's middle.
void Generate(int incast, int64_t incastSize, int64_t permSize, int64_t permStart) {
    const auto &hs = gSim.net.hosts;
    size_t H = hs.size();
    if (incast > 0) {
        if (size_t(incast) > H / 2) Die("--incast is above half the hosts");
        for (int i = 0; i < incast; i++) {
            FlowDef d;
            d.id = uint32_t(gSim.flows.size());
            d.src = hs[H / 2 + size_t(i)];
            d.dst = hs[0];
            d.size = incastSize;
            gSim.flows.push_back(d);
        }
    }
    if (permSize > 0) {
        for (size_t i = 0; i < H; i++) {
            FlowDef d;
            d.id = uint32_t(gSim.flows.size());
            d.src = hs[i];
            d.dst = hs[(i + H / 2) % H];
            d.size = permSize;
            d.start = permStart;
            gSim.flows.push_back(d);
        }
    }
}

} // namespace

int main(int argc, char **argv) {
    Time::SetResolution(Time::PS);

    // MPI when started by mpirun (or --mpi): OpenMPI, MPICH and PMIx set
    // one of these in every rank's environment.
    bool mpi = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
    for (int i = 1; i < argc; i++)
        if (std::string(argv[i]) == "--mpi" || std::string(argv[i]) == "--mpi=1") mpi = true;

    Net &net = gSim.net;
    std::string algoName = "dcqcn", flowsFile, kind = "clos", sim = "granted";
    int tors = 4, aggs = 4, k = 0, incast = 0;
    double linkGbps = 100, coreGbps = 0, delayUs = 1, durationMs = 2, incastKB = 0, permKB = 0,
           permStartUs = 0;
    uint64_t seed = 1;
    bool paths = false, mpiFlag = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("k", "fat tree of k-port switches (overrides the clos counts)", k);
    cmd.AddValue("pods", "clos: pods", net.pods);
    cmd.AddValue("tors", "clos: ToR switches in all", tors);
    cmd.AddValue("aggs", "clos: aggregation switches in all", aggs);
    cmd.AddValue("cores", "clos: core switches", net.cores);
    cmd.AddValue("hostsPerTor", "clos: hosts per ToR", net.hostsPerTor);
    cmd.AddValue("link", "host links, Gb/s", linkGbps);
    cmd.AddValue("coreLink", "switch-to-switch links, Gb/s (0: as link)", coreGbps);
    cmd.AddValue("delay", "every link's propagation delay, us", delayUs);
    cmd.AddValue("payload", "payload of a full data frame, bytes", gSim.payload);
    cmd.AddValue("ackEvery", "the receiver ACKs every n-th packet", gSim.ackEvery);
    cmd.AddValue("seed", "the harness's scenario seed (ECMP salts)", seed);
    cmd.AddValue("algo", "hwcc algorithm: dcqcn or rocc", algoName);
    cmd.AddValue("cp", "settings of the congestion points (\"\": defaults)", gSim.cpSettings);
    cmd.AddValue("rp", "settings of the reaction points", gSim.rpSettings);
    cmd.AddValue("np", "settings of the notification points", gSim.npSettings);
    cmd.AddValue("flows", "workload file: lines SRC DST SIZE_BYTES START_PS (hosts h0..)", flowsFile);
    cmd.AddValue("incast", "built-in workload: senders of the upper half into h0", incast);
    cmd.AddValue("incastKB", "built-in workload: each incast flow's size, KB (1000 B)", incastKB);
    cmd.AddValue("permKB", "built-in workload: each permutation flow's size, KB (0: none)", permKB);
    cmd.AddValue("permStart", "built-in workload: the permutation's start, us", permStartUs);
    cmd.AddValue("duration", "simulated time, ms", durationMs);
    cmd.AddValue("simulator", "MPI synchronisation: granted (time window) or nullmsg", sim);
    cmd.AddValue("paths", "print every flow's data path", paths);
    cmd.AddValue("canonical", "run a node's same-instant events in canonical order (0: simulator order)",
                 gCanonical);
    cmd.AddValue("mpi", "run under MPI (set by mpirun's environment)", mpiFlag);
    cmd.Parse(argc, argv);

    uint32_t rank = 0, ranks = 1;
    if (mpi) {
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue(sim == "nullmsg" ? "ns3::NullMessageSimulatorImpl"
                                                       : "ns3::DistributedSimulatorImpl"));
        MpiInterface::Enable(&argc, &argv);
        gMpi = true;
        rank = MpiInterface::GetSystemId();
        ranks = MpiInterface::GetSize();
    }
    if (hwcc_abi_version() != HWCC_ABI_VERSION) Die("libhwcc's ABI differs from hwcc.h's");
    if (gSim.payload <= 0 || gSim.ackEvery <= 0 || linkGbps <= 0 || coreGbps < 0 || delayUs < 0 || durationMs <= 0)
        Die("--payload, --ackEvery, --link and --duration must be > 0, --coreLink and --delay >= 0");
    for (const auto &a : kAlgorithms)
        if (algoName == a.name) gSim.algo = &a;
    if (!gSim.algo) Die("unknown --algo " + algoName + " (dcqcn or rocc)");

    if (k > 0) {
        if (k % 2 != 0) Die("--k must be even");
        kind = "fat-tree";
        net.pods = k;
        tors = aggs = k * k / 2;
        net.cores = k * k / 4;
        net.hostsPerTor = k / 2;
        net.torName = "edge";
    }
    if (net.pods <= 0 || tors % net.pods != 0 || aggs % net.pods != 0 || net.cores % (aggs / net.pods) != 0 ||
        net.hostsPerTor <= 0)
        Die("clos counts do not divide: tors and aggs must be multiples of pods, cores of aggs/pods");
    net.torsPerPod = tors / net.pods;
    net.aggsPerPod = aggs / net.pods;
    net.hostRate = int64_t(linkGbps * 1e9);
    net.fabricRate = coreGbps > 0 ? int64_t(coreGbps * 1e9) : net.hostRate;
    net.delay = int64_t(delayUs * 1e6);
    net.Build(seed);

    // Ranks: pods in contiguous groups, cores split evenly; hosts with
    // their ToR.
    int nt = net.pods * net.torsPerPod, na = net.pods * net.aggsPerPod;
    for (uint32_t i = 0; i < net.nodes.size(); i++) {
        NodeInfo &n = net.nodes[i];
        if (n.host) continue;
        int pod;
        if (int(i) < nt)
            pod = int(i) / net.torsPerPod;
        else if (int(i) < nt + na)
            pod = (int(i) - nt) / net.aggsPerPod;
        else {
            n.rank = uint32_t((int(i) - nt - na) * int(ranks) / net.cores);
            continue;
        }
        n.rank = uint32_t(pod * int(ranks) / net.pods);
    }
    for (uint32_t h : net.hosts) net.nodes[h].rank = net.nodes[net.nodes[h].edge].rank;

    if (!flowsFile.empty()) ReadFlows(flowsFile);
    Generate(incast, int64_t(incastKB * 1000), int64_t(permKB * 1000), int64_t(permStartUs * 1e6));
    if (gSim.flows.empty()) Die("no flows: give --flows or --incast/--permKB");

    // ns-3 nodes in the harness's order, so that node IDs agree (every
    // rank builds every node and link; a node runs on the rank of its
    // system ID).
    NodeContainer all;
    for (auto &n : net.nodes) all.Add(CreateObject<Node>(n.rank));
    // Devices are kept by (node, port): their ns-3 interface index plays
    // no part.
    std::vector<std::vector<Ptr<PointToPointNetDevice>>> devs(net.nodes.size());
    for (uint32_t i = 0; i < net.nodes.size(); i++) devs[i].resize(net.nodes[i].ports.size());
    int64_t lookahead = kMaxTime;
    for (const auto &l : net.links) {
        const PortInfo &p = net.nodes[l.a].ports[l.pa];
        int64_t gap = Ser(kPreamble, p.rate);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(p.rate))));
        p2p.SetDeviceAttribute("InterframeGap", TimeValue(PicoSeconds(gap)));
        // The frame arrives when its last bit does, preamble and gap
        // included in hwcc: ns-3 counts the gap after the frame, so the
        // link's delay carries it.
        p2p.SetChannelAttribute("Delay", TimeValue(PicoSeconds(p.delay + gap)));
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("4p"));
        NetDeviceContainer d = p2p.Install(all.Get(l.a), all.Get(l.b));
        devs[l.a][l.pa] = DynamicCast<PointToPointNetDevice>(d.Get(0));
        devs[l.b][l.pb] = DynamicCast<PointToPointNetDevice>(d.Get(1));
        if (net.nodes[l.a].rank != net.nodes[l.b].rank) lookahead = std::min(lookahead, p.delay + gap);
    }

    gSim.engines.assign(net.nodes.size(), nullptr);
    gSim.tx.resize(gSim.flows.size());
    gSim.rx.resize(gSim.flows.size());
    for (uint32_t i = 0; i < net.nodes.size(); i++) {
        NodeInfo &n = net.nodes[i];
        if (n.rank != rank) continue;
        Engine *e = new Engine;
        e->node = i;
        e->host = n.host;
        e->ports.resize(n.ports.size());
        for (uint32_t j = 0; j < n.ports.size(); j++) {
            Port &pt = e->ports[j];
            pt.e = e;
            pt.num = j;
            pt.dev = devs[i][j];
            pt.rate = n.ports[j].rate;
            pt.delay = n.ports[j].delay;
            pt.dev->SetReceiveCallback(MakeBoundCallback(&OnReceive, e, j));
            pt.dev->TraceConnectWithoutContext("PhyTxEnd", MakeBoundCallback(&OnTxEnd, e, j));
            if (!n.host && gSim.algo->cp) {
                hwcc_env env;
                std::memset(&env, 0, sizeof env);
                env.rate = pt.rate;
                env.node = i;
                env.port = uint16_t(j);
                env.switch_id = n.swId;
                env.index = int32_t(n.firstCp + j) + 1;
                pt.cp = new Part(gSim.algo->name, gSim.algo->cp, gSim.cpSettings, env);
            }
        }
        gSim.engines[i] = e;
    }
    for (Engine *e : gSim.engines)
        if (e)
            for (Port &pt : e->ports) ArmCP(e, pt);
    for (const FlowDef &d : gSim.flows) {
        if (Engine *e = gSim.engines[d.src])
            Simulator::Schedule(PicoSeconds(d.start), &PostTimer, e, uint8_t(kStartTx), d.id, int64_t(0), e->seq++);
        if (Engine *e = gSim.engines[d.dst])
            Simulator::Schedule(PicoSeconds(d.start), &PostTimer, e, uint8_t(kStartRx), d.id, int64_t(0), e->seq++);
    }

    if (rank == 0) {
        std::printf("config kind %s pods %d tors %d aggs %d cores %d hosts %zu switches %u link_gbps %g "
                    "core_link_gbps %g delay_us %g payload %" PRId64 " algo %s flows %zu ranks %u "
                    "simulator %s lookahead_ps %" PRId64 "\n",
                    kind.c_str(), net.pods, tors, aggs, net.cores, net.hosts.size(), net.nSwitches,
                    net.hostRate / 1e9, net.fabricRate / 1e9, delayUs, gSim.payload, gSim.algo->name,
                    gSim.flows.size(), ranks, mpi ? sim.c_str() : "sequential",
                    lookahead == kMaxTime ? int64_t(0) : lookahead);
        std::vector<uint32_t> perRank(ranks, 0);
        for (auto &n : net.nodes) perRank[n.rank]++;
        std::printf("ranks");
        for (uint32_t r = 0; r < ranks; r++) std::printf(" %u:%u", r, perRank[r]);
        std::printf(" (nodes per rank)\n");
        if (paths) {
            for (const FlowDef &d : gSim.flows) {
                std::vector<std::pair<uint32_t, uint32_t>> hops;
                std::vector<std::pair<int64_t, int64_t>> lk;
                net.Path(d.id, d.src, d.dst, &hops, &lk);
                std::printf("path %u", d.id);
                for (auto &h : hops) std::printf(" %s:%u", net.nodes[h.first].name.c_str(), h.second);
                std::printf("\n");
            }
        }
        std::fflush(stdout);
    }

    Simulator::Stop(PicoSeconds(int64_t(durationMs * 1e9)));
    auto t0 = std::chrono::steady_clock::now();
    double cpu0 = CpuSeconds();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Per rank: simulator events, wall and CPU seconds of Run (the CPU
    // includes MPI's busy-waiting at the synchronisation points).
    double mineStats[3] = {double(Simulator::GetEventCount()), wall, CpuSeconds() - cpu0};
    std::vector<double> stats(mineStats, mineStats + 3);

    // Results: each sender's rank knows its flows' completion.
    const int W = 3;
    std::vector<int64_t> mine;
    for (const FlowDef &d : gSim.flows)
        if (gSim.engines[d.src]) {
            mine.push_back(d.id);
            mine.push_back(gSim.tx[d.id].finishAt);
            mine.push_back(int64_t(gSim.tx[d.id].sndMax));
        }
    int64_t maxQueue = 0;
    for (Engine *e : gSim.engines)
        if (e && !e->host)
            for (Port &pt : e->ports) maxQueue = std::max(maxQueue, pt.maxData);
    const Counters &c = gSim.ctr;
    std::vector<uint64_t> ctr = {c.dataSent, c.ackSent,    c.cnpSent,   c.feedbackSent, c.frameHops,
                                 c.marks,    c.rpFeedback, gPartErrors, c.items};
    std::vector<int64_t> all_(mine);
    std::vector<uint64_t> ctrSum(ctr);
    double wallMax = wall;
    int64_t maxQ = maxQueue;
    if (mpi) {
        int n = int(mine.size());
        std::vector<int> counts(ranks), displs(ranks);
        MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        int total = 0;
        for (uint32_t r = 0; r < ranks; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all_.assign(rank == 0 ? size_t(total) : 0, 0);
        MPI_Gatherv(mine.data(), n, MPI_INT64_T, all_.data(), counts.data(), displs.data(), MPI_INT64_T, 0,
                    MPI_COMM_WORLD);
        MPI_Reduce(ctr.data(), ctrSum.data(), int(ctr.size()), MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&wall, &wallMax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&maxQueue, &maxQ, 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
        stats.assign(rank == 0 ? 3 * ranks : 0, 0);
        MPI_Gather(mineStats, 3, MPI_DOUBLE, stats.data(), 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        std::vector<int64_t> finish(gSim.flows.size(), -2), sent(gSim.flows.size(), 0);
        for (size_t i = 0; i + W <= all_.size(); i += W) {
            finish[size_t(all_[i])] = all_[i + 1];
            sent[size_t(all_[i])] = all_[i + 2];
        }
        size_t done = 0;
        for (const FlowDef &d : gSim.flows) {
            int64_t f = finish[d.id];
            int64_t fct = f >= 0 ? f - d.start : -1;
            if (f >= 0) done++;
            std::printf("flow %u src %s dst %s size %" PRId64 " start_ps %" PRId64 " fct_ps %" PRId64 "\n", d.id,
                        net.nodes[d.src].name.c_str(), net.nodes[d.dst].name.c_str(), d.size, d.start, fct);
        }
        std::printf("counters data_sent %" PRIu64 " acks_sent %" PRIu64 " cnps_sent %" PRIu64
                    " feedback_sent %" PRIu64 " frame_hops %" PRIu64 " ce_marks %" PRIu64
                    " rp_feedback %" PRIu64 " part_errors %" PRIu64 " max_queue_bytes %" PRId64 "\n",
                    ctrSum[0], ctrSum[1], ctrSum[2], ctrSum[3], ctrSum[4], ctrSum[5], ctrSum[6], ctrSum[7],
                    maxQ);
        std::printf("done %zu of %zu\n", done, gSim.flows.size());
        std::printf("node_events %" PRIu64 "\n", ctrSum[8]);
        for (uint32_t r = 0; r < ranks; r++)
            std::printf("rank %u events %.0f wall_seconds %.3f cpu_seconds %.3f\n", r, stats[3 * r],
                        stats[3 * r + 1], stats[3 * r + 2]);
        std::printf("wall_seconds %.3f\n", wallMax);
    }
    std::fflush(stdout);

    Simulator::Destroy();
    for (auto &f : gSim.tx) delete f.rp;
    for (auto &r : gSim.rx) delete r.np;
    for (Engine *e : gSim.engines) {
        if (!e) continue;
        for (Port &pt : e->ports) delete pt.cp;
        delete e;
    }
    if (hwcc_live_parts() != 0) Die("parts left after the run");
    if (mpi) MpiInterface::Disable();
    return 0;
}
