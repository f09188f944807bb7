package cp

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// TestHPCCTxBytesCounter: which transmit counter the INT record carries. The
// authors' ns-3 switch counts txBytes per port over every priority
// (m_txBytes[ifIndex] += size for every dequeued packet, data, ACK or
// PFC), where hwcc's default counts only the packets of its own queue.
// Config.PortTxBytes reads the caller's port counter, cc.Queue.TxBytes,
// instead. The port below has sent 1 MB of other priorities' traffic
// between the two data packets; hand-computed records (128 B units):
//
//	default: ⌊0/128⌋ = 0, then ⌊1500/128⌋ = 11
//	port:    ⌊5000/128⌋ = 39, then ⌊(5000 + 1500 + 10^6)/128⌋ = 7863
func TestHPCCTxBytesCounter(t *testing.T) {
	for _, tc := range []struct {
		name     string
		port     bool
		want0    uint32
		want1    uint32
		register units.Bytes
	}{
		{"own queue", false, 0, 11, 3000},
		{"port, all priorities", true, 39, 7863, 1006500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewHPCC(HPCCConfig{SwitchID: 1, Rate: 100 * units.Gbps, PortTxBytes: tc.port})
			require.NoError(t, err)
			t0, t1 := hpccTel(t, &inttel.Header{}), hpccTel(t, &inttel.Header{})
			q := cc.Queue{Len: 0, Rate: 100 * units.Gbps, TxBytes: 5000}
			require.NoError(t, c.Dequeue(1*units.Microsecond, &cc.Packet{Size: 1500, Tel: t0}, q, nil))
			q.TxBytes += 1500 + 1_000_000
			require.NoError(t, c.Dequeue(2*units.Microsecond, &cc.Packet{Size: 1500, Tel: t1}, q, nil))
			require.Equal(t, tc.want0, hpccHeaderOf(t, t0).Hops[0].TxBytes)
			require.Equal(t, tc.want1, hpccHeaderOf(t, t1).Hops[0].TxBytes)
			require.Equal(t, tc.register, c.State().TxBytes)
		})
	}
}

// TestHPCCDocStatesTxBytes: go doc of cp.HPCC says which transmit counter
// the records carry and that ns-3 counts over all priorities.
func TestHPCCDocStatesTxBytes(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", nil, parser.ParseComments)
	require.NoError(t, err)
	var files []*ast.File
	for _, f := range pkgs["cp"].Files {
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/hwcc/hwcc/cp")
	require.NoError(t, err)
	for _, ty := range p.Types {
		if ty.Name == "HPCC" {
			for _, want := range []string{"all priorities", "PortTxBytes", "ns-3"} {
				require.Contains(t, ty.Doc, want)
			}
			return
		}
	}
	t.Fatal("type HPCC not found")
}
