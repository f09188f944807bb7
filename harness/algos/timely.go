package algos

import "github.com/hwcc/hwcc/harness"

// timelyName is the registry name.
const timelyName = "timely"

func init() {
	harness.MustRegisterScheme(harness.Scheme{
		Algo: timelyName,
		Doc: "every sender runs the timely rp (timely.RP): one RTT sample per 16 KB segment from the ACK that completes it, " +
			"Algorithm 1 on each; no switch state, no notification point",
	})
}
