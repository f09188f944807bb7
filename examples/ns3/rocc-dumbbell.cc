//go:build ignore

// (The constraint above keeps the go tool from taking this C++ file as part
// of package ns3_test, which has no cgo.)

// rocc-dumbbell.cc: hwcc's RoCC state machines driven by ns-3 (issue 17).
//
// N senders -> router A -> router B -> one receiver, every link point to
// point. The bottleneck is A's egress toward B: a FIFO queue disc whose
// Enqueue and Dequeue trace sources feed an hwcc RoCC congestion point
// ("rocc"/"cp"). Every feedback action the CP emits (a rate message to the
// flow's source) reaches that sender's hwcc RoCC reaction point
// ("rocc"/"rp") after the reverse path's delay (one 1 us link plus a CNP's
// serialisation) and the NIC's 15 us reaction delay, the value hwcc's own
// simulator applies. Each sender is an ns-3 application that paces 1000-byte
// UDP payloads at min(offered load, line rate, the rp's rate), calling
// hwcc_sent for every packet. Every part's timer runs through
// Simulator::Schedule at hwcc_next_deadline.
//
// Defaults mirror `hwcc sim -scenario rocc-fairness`: 10 flows offered
// 36 Gb/s each into a 40 Gb/s port, 1 us links, RoCC's auto preset (40g).
//
// Output: a `sample` line every --interval (default 1 ms), then one
// `flow N throughput_gbps X` line per flow and `jain J`, measured over the
// second half of the run. Throughput counts link bytes (the PPP frame: UDP
// payload + 8 + 20 + 2), i.e. each flow's share of the 40 Gb/s link, as
// hwcc sim counts wire bytes.

#include "hwcc.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace ns3;

namespace {

// Bytes a UDP payload gains on a point-to-point link: UDP 8, IPv4 20, PPP 2.
constexpr int64_t kUdpIpBytes = 28;
constexpr int64_t kPppBytes = 2;
// A RoCEv2 CNP frame with preamble and IFG, as hwcc sim sends it (98 B).
constexpr int64_t kCnpWireBytes = 98;

[[noreturn]] void Die(const char *what, int rc, const char *err) {
    std::fprintf(stderr, "rocc-dumbbell: %s: %s (%s)\n", what, hwcc_strerror(rc), err);
    std::exit(1);
}

int64_t NowPs() { return Simulator::Now().GetPicoSeconds(); }

// FlowTag carries the hwcc flow ID with every data packet (simulation
// metadata: it costs no bytes on the wire).
class FlowTag : public Tag {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("hwcc::FlowTag").SetParent<Tag>().AddConstructor<FlowTag>();
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    uint32_t GetSerializedSize() const override { return 4; }
    void Serialize(TagBuffer i) const override { i.WriteU32(flow); }
    void Deserialize(TagBuffer i) override { flow = i.ReadU32(); }
    void Print(std::ostream &os) const override { os << "flow=" << flow; }
    uint32_t flow = 0;
};

// Part wraps one hwcc part: it runs the events, hands their actions to
// onActions, and keeps one ns-3 event at the part's deadline.
class Part {
  public:
    std::function<void(const hwcc_action *, size_t)> onActions;

    Part(const char *algo, const char *name, const char *settings, const hwcc_env &env) {
        char err[256];
        int rc = hwcc_part_new(algo, name, settings, &env, &p_, err, sizeof err);
        if (rc != HWCC_OK) Die("hwcc_part_new", rc, err);
        acts_.resize(64);
    }
    ~Part() { hwcc_part_free(p_); }
    hwcc_part *get() const { return p_; }

    // Run calls ev(acts, cap, &n, err, errlen), growing the action array on
    // HWCC_E_ACTIONS_FULL (the event changed nothing, so it is retried).
    template <class F> void Run(const char *what, F ev) {
        for (;;) {
            size_t n = 0;
            char err[256];
            int rc = ev(acts_.data(), acts_.size(), &n, err, sizeof err);
            if (rc == HWCC_E_ACTIONS_FULL && acts_.size() < HWCC_MAX_ACTIONS) {
                acts_.resize(acts_.size() * 4);
                continue;
            }
            if (rc != HWCC_OK) Die(what, rc, err);
            if (n > 0 && onActions) onActions(acts_.data(), n);
            break;
        }
        Rearm();
    }

    // Rearm schedules the timer at the part's deadline if it moved.
    void Rearm() {
        int64_t d = hwcc_next_deadline(p_);
        if (d < 0) Die("hwcc_next_deadline", int(d), "");
        if (d == armed_) return;
        timer_.Cancel();
        armed_ = d;
        if (d == HWCC_NO_DEADLINE) return;
        int64_t delay = std::max<int64_t>(0, d - NowPs());
        timer_ = Simulator::Schedule(PicoSeconds(delay), &Part::Fire, this);
    }

  private:
    void Fire() {
        armed_ = HWCC_NO_DEADLINE; // the event has run
        int64_t now = NowPs();
        Run("hwcc_timer", [&](hwcc_action *a, size_t cap, size_t *n, char *e, size_t el) {
            return hwcc_timer(p_, now, a, cap, n, e, el);
        });
    }

    hwcc_part *p_ = nullptr;
    std::vector<hwcc_action> acts_;
    EventId timer_;
    int64_t armed_ = HWCC_NO_DEADLINE;
};

// Sender is one flow: paced UDP packets from its host to the receiver,
// with an hwcc RoCC reaction point setting the pace.
class Sender : public Application {
  public:
    Sender(uint32_t flow, Address peer, int64_t payload, int64_t offered, int64_t line,
           const std::string &settings)
        : flow_(flow), peer_(peer), payload_(payload), offered_(offered), line_(line) {
        hwcc_env env = {};
        env.rate = line;          // Rmax: the NIC's line rate
        env.node = flow + 1;      // the host
        env.payload = payload;
        env.index = int32_t(flow) + 1;
        rp_ = new Part("rocc", "rp", settings.c_str(), env);
        rp_->onActions = [](const hwcc_action *, size_t) {}; // RoCC's rp acts through its limits
    }
    ~Sender() override { delete rp_; }

    // Feedback delivers a CP's message (after the reverse path's delay).
    void Feedback(hwcc_feedback_t f) {
        int64_t now = NowPs();
        rp_->Run("hwcc_feedback", [&](hwcc_action *a, size_t cap, size_t *n, char *e, size_t el) {
            return hwcc_feedback(rp_->get(), now, &f, a, cap, n, e, el);
        });
        ++feedbacks_;
        Repace();
    }

    uint64_t feedbacks() const { return feedbacks_; }
    uint64_t packets() const { return seq_ / uint64_t(payload_); }
    int64_t rate() const { return rate_; }

  private:
    void StartApplication() override {
        socket_ = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        socket_->Bind();
        socket_->Connect(peer_);
        running_ = true;
        rate_ = CurrentRate();
        lastSendPs_ = -1;
        next_ = Simulator::ScheduleNow(&Sender::Send, this);
    }
    void StopApplication() override {
        running_ = false;
        next_.Cancel();
        if (socket_) socket_->Close();
    }

    int64_t wire() const { return payload_ + kUdpIpBytes + kPppBytes; }

    // CurrentRate is min(offered, line, the rp's pacing rate).
    int64_t CurrentRate() {
        hwcc_limits_t lim = {};
        int rc = hwcc_limits(rp_->get(), &lim);
        if (rc != HWCC_OK) Die("hwcc_limits", rc, "");
        int64_t r = std::min(offered_, line_);
        if (lim.rate > 0) r = std::min(r, lim.rate);
        return r;
    }

    int64_t GapPs(int64_t rate) const {
        // wire bytes * 8 bits at rate bit/s, in ps.
        return int64_t((long double)wire() * 8.0L * 1e12L / (long double)rate);
    }

    // Repace re-reads the rate and moves the pending send to one gap (at
    // the new rate) after the previous packet, or now if that has passed.
    void Repace() {
        int64_t r = CurrentRate();
        if (r == rate_ || !running_) {
            rate_ = r;
            return;
        }
        rate_ = r;
        if (lastSendPs_ < 0) return;
        next_.Cancel();
        int64_t at = std::max(NowPs(), lastSendPs_ + GapPs(rate_));
        next_ = Simulator::Schedule(PicoSeconds(at - NowPs()), &Sender::Send, this);
    }

    void Send() {
        if (!running_) return;
        int64_t now = NowPs();
        hwcc_packet pkt = {};
        pkt.flow = flow_;
        pkt.src = flow_ + 1;
        pkt.dst = 0;
        pkt.seq = seq_;
        pkt.payload = payload_;
        pkt.size = wire();
        pkt.prio = 3;
        rp_->Run("hwcc_sent", [&](hwcc_action *a, size_t cap, size_t *n, char *e, size_t el) {
            return hwcc_sent(rp_->get(), now, &pkt, a, cap, n, e, el);
        });
        seq_ += uint64_t(payload_);
        Ptr<Packet> p = Create<Packet>(uint32_t(payload_));
        FlowTag tag;
        tag.flow = flow_;
        p->AddPacketTag(tag);
        socket_->Send(p);
        lastSendPs_ = now;
        rate_ = CurrentRate();
        next_ = Simulator::Schedule(PicoSeconds(GapPs(rate_)), &Sender::Send, this);
    }

    uint32_t flow_;
    Address peer_;
    int64_t payload_, offered_, line_;
    Part *rp_ = nullptr;
    Ptr<Socket> socket_;
    EventId next_;
    bool running_ = false;
    int64_t rate_ = 0;
    int64_t lastSendPs_ = -1;
    uint64_t seq_ = 0;
    uint64_t feedbacks_ = 0;
};

// Bottleneck couples the FIFO queue disc on A's egress to an hwcc RoCC cp.
struct Bottleneck {
    Ptr<QueueDisc> qd;
    Part *cp = nullptr;
    int64_t rate = 0;
    uint64_t txBytes = 0;
    std::vector<Ptr<Sender>> *senders = nullptr;
    int64_t fbDelayPs = 0;
    uint64_t feedbacks = 0, otherActions = 0;

    hwcc_queue Queue() const {
        hwcc_queue q = {};
        q.len = int64_t(qd->GetNBytes()) + kPppBytes * int64_t(qd->GetNPackets());
        q.rate = rate;
        q.tx_bytes = txBytes;
        return q;
    }

    static hwcc_packet Packet(Ptr<const QueueDiscItem> item) {
        hwcc_packet pkt = {};
        FlowTag tag;
        if (item->GetPacket()->PeekPacketTag(tag)) pkt.flow = tag.flow;
        pkt.src = pkt.flow + 1;
        pkt.size = int64_t(item->GetSize()) + kPppBytes;
        pkt.payload = int64_t(item->GetPacket()->GetSize()) - 8;
        if (pkt.payload < 0) pkt.payload = 0;
        pkt.prio = 3;
        return pkt;
    }

    void Enqueue(Ptr<const QueueDiscItem> item) {
        hwcc_packet pkt = Packet(item);
        hwcc_queue q = Queue();
        int64_t now = NowPs();
        cp->Run("hwcc_enqueue", [&](hwcc_action *a, size_t cap, size_t *n, char *e, size_t el) {
            return hwcc_enqueue(cp->get(), now, 0, &pkt, &q, a, cap, n, e, el);
        });
    }

    void Dequeue(Ptr<const QueueDiscItem> item) {
        hwcc_packet pkt = Packet(item);
        txBytes += uint64_t(pkt.size);
        hwcc_queue q = Queue();
        int64_t now = NowPs();
        cp->Run("hwcc_dequeue", [&](hwcc_action *a, size_t cap, size_t *n, char *e, size_t el) {
            return hwcc_dequeue(cp->get(), now, 0, &pkt, &q, a, cap, n, e, el);
        });
    }

    void Actions(const hwcc_action *acts, size_t n) {
        for (size_t i = 0; i < n; i++) {
            const hwcc_action &a = acts[i];
            if (a.kind != HWCC_ACT_FEEDBACK || a.to != HWCC_TO_SOURCE ||
                a.feedback.flow >= senders->size()) {
                ++otherActions; // RoCC's cp sends only rate messages to sources
                continue;
            }
            ++feedbacks;
            Ptr<Sender> s = (*senders)[a.feedback.flow];
            Simulator::Schedule(PicoSeconds(fbDelayPs), &Sender::Feedback, s, a.feedback);
        }
    }
};

} // namespace

int main(int argc, char **argv) {
    Time::SetResolution(Time::PS);

    uint32_t senders = 10;
    double linkGbps = 40, offeredGbps = 36;
    double durationMs = 20, intervalMs = 1, delayUs = 1, reactionUs = 15;
    uint32_t payload = 1000;
    uint64_t bufferBytes = 32u << 20;
    std::string cpSettings, rpSettings;
    CommandLine cmd(__FILE__);
    cmd.AddValue("senders", "number of senders (flows)", senders);
    cmd.AddValue("link", "every link's rate, Gb/s", linkGbps);
    cmd.AddValue("offered", "each flow's offered load, Gb/s (the application's cap)", offeredGbps);
    cmd.AddValue("delay", "every link's propagation delay, us", delayUs);
    cmd.AddValue("reaction", "the NIC's reaction delay to a rate message, us", reactionUs);
    cmd.AddValue("duration", "simulated time, ms (measured over the second half)", durationMs);
    cmd.AddValue("interval", "sample interval, ms", intervalMs);
    cmd.AddValue("payload", "UDP payload per packet, bytes", payload);
    cmd.AddValue("buffer", "bottleneck queue disc limit, bytes", bufferBytes);
    cmd.AddValue("cp", "hwcc settings of the rocc cp (\"\": preset auto)", cpSettings);
    cmd.AddValue("rp", "hwcc settings of the rocc rp (\"\": preset auto)", rpSettings);
    cmd.Parse(argc, argv);

    if (hwcc_abi_version() != HWCC_ABI_VERSION) {
        std::fprintf(stderr, "rocc-dumbbell: libhwcc ABI %d, header %d\n", hwcc_abi_version(),
                     HWCC_ABI_VERSION);
        return 1;
    }
    const int64_t link = int64_t(linkGbps * 1e9);
    const std::string linkStr = std::to_string(link) + "bps";
    const std::string delayStr = std::to_string(int64_t(delayUs * 1e6)) + "ps";

    // Nodes: senders, routers A and B, the receiver.
    NodeContainer hosts, routers, sink;
    hosts.Create(senders);
    routers.Create(2);
    sink.Create(1);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(linkStr));
    p2p.SetChannelAttribute("Delay", StringValue(delayStr));
    // A one-packet device queue: the queueing happens in the queue discs.
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));

    Ipv4AddressHelper addr;
    std::vector<NetDeviceContainer> access;
    for (uint32_t i = 0; i < senders; i++) {
        NetDeviceContainer d = p2p.Install(hosts.Get(i), routers.Get(0));
        std::string net = "10.1." + std::to_string(i + 1) + ".0";
        addr.SetBase(net.c_str(), "255.255.255.0");
        addr.Assign(d);
        access.push_back(d);
    }
    NetDeviceContainer core = p2p.Install(routers.Get(0), routers.Get(1));
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                         QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, uint32_t(bufferBytes))));
    QueueDiscContainer qdc = tch.Install(core.Get(0)); // A's egress toward B
    addr.SetBase("10.2.0.0", "255.255.255.0");
    addr.Assign(core);
    NetDeviceContainer last = p2p.Install(routers.Get(1), sink.Get(0));
    addr.SetBase("10.3.0.0", "255.255.255.0");
    Ipv4InterfaceContainer sinkIf = addr.Assign(last);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // The receiver counts each flow's link bytes.
    const uint16_t port = 9;
    std::vector<uint64_t> rxBytes(senders, 0), rxMark(senders, 0), rxHalf(senders, 0);
    Ptr<Socket> rx = Socket::CreateSocket(sink.Get(0), UdpSocketFactory::GetTypeId());
    rx->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
    rx->SetRecvCallback([&rxBytes](Ptr<Socket> s) {
        Ptr<Packet> p;
        while ((p = s->Recv())) {
            FlowTag tag;
            if (p->PeekPacketTag(tag) && tag.flow < rxBytes.size())
                rxBytes[tag.flow] += p->GetSize() + kUdpIpBytes + kPppBytes;
        }
    });

    // The bottleneck's congestion point.
    std::vector<Ptr<Sender>> apps;
    Bottleneck bn;
    bn.qd = qdc.Get(0);
    bn.rate = link;
    bn.senders = &apps;
    bn.fbDelayPs = int64_t(delayUs * 1e6) + kCnpWireBytes * 8 * int64_t(1e12) / link +
                   int64_t(reactionUs * 1e6);
    hwcc_env cpEnv = {};
    cpEnv.rate = link;
    cpEnv.node = 1;     // switch A
    cpEnv.port = 1;     // its port toward B
    cpEnv.switch_id = 1;
    cpEnv.index = 1;
    Part cpPart("rocc", "cp", cpSettings.c_str(), cpEnv);
    bn.cp = &cpPart;
    cpPart.onActions = [&bn](const hwcc_action *a, size_t n) { bn.Actions(a, n); };
    bn.qd->TraceConnectWithoutContext("Enqueue", MakeCallback(&Bottleneck::Enqueue, &bn));
    bn.qd->TraceConnectWithoutContext("Dequeue", MakeCallback(&Bottleneck::Dequeue, &bn));
    cpPart.Rearm();

    const Time stop = PicoSeconds(int64_t(durationMs * 1e9));
    for (uint32_t i = 0; i < senders; i++) {
        Ptr<Sender> app = CreateObject<Sender>(i, InetSocketAddress(sinkIf.GetAddress(1), port),
                                               int64_t(payload), int64_t(offeredGbps * 1e9), link,
                                               rpSettings);
        hosts.Get(i)->AddApplication(app);
        app->SetStartTime(Seconds(0));
        app->SetStopTime(stop);
        apps.push_back(app);
    }

    std::printf("config senders %u link_gbps %.3f offered_gbps %.3f delay_us %.3f "
                "reaction_us %.3f duration_ms %.3f payload %u fair_share_gbps %.4f\n",
                senders, linkGbps, offeredGbps, delayUs, reactionUs, durationMs, payload,
                linkGbps / senders);

    // Samples every interval; the second half's bytes at the half-way mark.
    const int64_t intervalPs = int64_t(intervalMs * 1e9);
    const int64_t halfPs = stop.GetPicoSeconds() / 2;
    double qSum = 0;
    uint64_t qN = 0;
    int64_t lastSamplePs = 0;
    auto printSample = [&]() {
        int64_t now = NowPs();
        double dt = double(now - lastSamplePs) * 1e-12;
        if (dt <= 0) return;
        lastSamplePs = now;
        std::printf("sample t_ms %.3f queue_bytes %u gbps", now * 1e-9, bn.qd->GetNBytes());
        for (uint32_t i = 0; i < senders; i++) {
            std::printf(" %.3f", double(rxBytes[i] - rxMark[i]) * 8 / dt / 1e9);
            rxMark[i] = rxBytes[i];
        }
        std::printf("\n");
    };
    std::function<void()> sample = [&]() {
        printSample();
        if (NowPs() + intervalPs < stop.GetPicoSeconds())
            Simulator::Schedule(PicoSeconds(intervalPs), sample);
    };
    Simulator::Schedule(PicoSeconds(intervalPs), sample);
    Simulator::Schedule(PicoSeconds(halfPs), [&]() { rxHalf = rxBytes; });
    // A light queue sampler for the second half's mean (every 10 us).
    std::function<void()> qsample = [&]() {
        qSum += bn.qd->GetNBytes();
        qN++;
        if (NowPs() + 10000000 < stop.GetPicoSeconds())
            Simulator::Schedule(MicroSeconds(10), qsample);
    };
    Simulator::Schedule(PicoSeconds(halfPs), qsample);

    Simulator::Stop(stop);
    Simulator::Run();
    printSample(); // the last interval, ending at the stop time

    const double window = double(stop.GetPicoSeconds() - halfPs) * 1e-12;
    double sum = 0, sum2 = 0;
    for (uint32_t i = 0; i < senders; i++) {
        double g = double(rxBytes[i] - rxHalf[i]) * 8 / window / 1e9;
        sum += g;
        sum2 += g * g;
        std::printf("flow %u throughput_gbps %.4f\n", i, g);
    }
    double jain = sum2 > 0 ? sum * sum / (senders * sum2) : 0;
    std::printf("total_gbps %.4f\n", sum);
    std::printf("mean_queue_bytes %.0f\n", qN ? qSum / qN : 0.0);
    uint64_t fbs = 0;
    for (auto &a : apps) fbs += a->feedbacks();
    std::printf("cp_feedbacks %" PRIu64 " rp_feedbacks %" PRIu64 " other_actions %" PRIu64
                " drops %u\n",
                bn.feedbacks, fbs, bn.otherActions, bn.qd->GetStats().nTotalDroppedPackets);
    std::printf("jain %.6f\n", jain);

    Simulator::Destroy();
    apps.clear();
    return 0;
}
