package np_test

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/wire"
)

// The contract's conformance suite on the notification point, paced and
// not.
func TestFECNConformance(t *testing.T) {
	// The NP receives the generator's data packets, some marked, and its
	// source's messages (none of a kind it uses).
	for name, cfg := range map[string]np.FECNConfig{"survey": np.FECNSurvey(), "infiniband": np.FECNInfiniBand(), "3us": {MinInterval: 3 * fecnUs}} {
		t.Run("NP/"+name, func(t *testing.T) {
			o := cctest.Options{Gen: cctest.GenOptions{Messages: []cc.Feedback{{Kind: wire.FeedbackBECN, Flow: 1}}}}
			if err := cctest.TestNP(func() (cc.NotificationPoint, error) { return np.NewFECN(cfg) }, o); err != nil {
				t.Fatal(err)
			}
		})
	}
}
