package algos

import "github.com/hwcc/hwcc/harness"

// mercuryName is the registry name.
const mercuryName = "mercury"

func init() {
	harness.MustRegisterScheme(harness.Scheme{
		Algo:       mercuryName,
		CP:         "-",
		NP:         "-",
		NoAcks:     true,
		NetworkRTT: true,
		Doc: "every switch runs the mercury sw part (mercury.Switch): per egress port the Determined/Undetermined state machine, " +
			"driven by the PFC pauses and resumes of the data priority, and the flow table; a packet that joins a Determined port's " +
			"queue above the threshold makes its flow's entry send a CNP (at most one per 50 µs) to the flow's source, with the window " +
			"C·baseRTT·data_f/Σdata in its reserved bytes (baseRTT the network's largest); every flow's sender runs the mercury rp " +
			"(DCQCN's reaction point with its paper's parameters, plus that window, C·baseRTT at first and 100 µs after the last CNP); " +
			"no congestion point marks, no receiver sends CNPs, no ACK reaches the rp; CNPs are RoCEv2 CNP frames",
	})
}
