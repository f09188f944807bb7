package rp

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/window"
)

// hpccReviewT is T = 2^24 ps = 16.777216 µs, chosen so that the EWMA
// weight is exact: ⌊2^64/T⌋ = 2^40, and τ = 4096 ns gives
// w = 4096000·2^40/2^32 = 4096000·2^8 = 1048576000, τ/T = 0.244140625.
const (
	hpccReviewT   = units.Time(1 << 24)
	hpccReviewTau = 4096 // ns between the two records
	hpccReviewW   = 1048576000
)

// TestHPCCInitialU: where the utilisation estimate starts. U starts at 0 in
// hwcc, at 1 in the authors' ns-3 code (hp.u = 1, and hopState[i].u = 1),
// at η in htsim; Config.InitialU selects it. The first measured ACK then
// runs U = (1 − τ/T)·U0 + (τ/T)·u, hand-computed here for a single 100
// Gb/s hop that sent 51200 B in τ = 4.096 µs: txRate/B = 51200·8 /
// (100 Gb/s · 4.096 µs) = 1 exactly, no queue, so u = 1 and (native
// divide, exact)
//
//	U0 = 0: U = 0.244140625          (raw w = 1048576000)
//	U0 = 1: U = 1                    (raw 2^32)
//	U0 = η: U = η·(1 − w) + w, rounded half up: raw 4132647731 (math/big)
//
// and, the ACK not committing (ackSeq ≤ lastUpdateSeq), fast react gives
// W from Wc = W_init = ⌊100 Gb/s · T / 8⌋ = 209715 B:
//
//	U < η: W = min(Wc + W_AI, W_max) = 209715
//	U ≥ η: W = ⌊Wc·η_raw/U_raw⌋ + W_AI: 199229 + 80 (U = 1), 207054 + 80 (U ≈ 0.962)
func TestHPCCInitialU(t *testing.T) {
	// U0 = η: (η_raw·(2^32 − w) + 2^32·w + 2^31) >> 32, in math/big.
	etaRaw := big.NewInt(int64(window.Eta95))
	u1 := new(big.Int).Mul(etaRaw, big.NewInt(1<<32-hpccReviewW))
	u1.Add(u1, new(big.Int).Lsh(big.NewInt(hpccReviewW), 32))
	u1.Add(u1, big.NewInt(1<<31))
	u1.Rsh(u1, 32)
	require.Equal(t, uint64(4132647731), u1.Uint64())
	wEta := new(big.Int).Mul(big.NewInt(209715), etaRaw)
	wEta.Quo(wEta, u1)
	require.Equal(t, int64(207054), wEta.Int64())

	for _, tc := range []struct {
		name  string
		init  HPCCInitialU
		wantU fixedpoint.UQ32_32
		wantW units.Bytes
	}{
		{"zero", HPCCInitialUZero, hpccReviewW, 209715},
		{"one", HPCCInitialUOne, fixedpoint.UQ32_32One, 199229 + 80},
		{"eta", HPCCInitialUEta, fixedpoint.UQ32_32(u1.Uint64()), 207054 + 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHPCC(t, func(c *HPCCConfig) {
				c.Window.T = hpccReviewT
				c.Window.Init = units.BytesIn(100*units.Gbps, hpccReviewT)
				c.Window.Max = c.Window.Init
				c.Window.Min = units.BytesIn(HPCCMinRate, hpccReviewT)
				c.Window.NativeDivision = true
				c.InitialU = tc.init
			})
			require.Equal(t, units.Bytes(209715), h.Window())
			want0 := map[HPCCInitialU]fixedpoint.UQ32_32{
				HPCCInitialUZero: 0, HPCCInitialUOne: fixedpoint.UQ32_32One, HPCCInitialUEta: window.Eta95,
			}[tc.init]
			require.Equal(t, want0, h.U(), "U before the first ACK")
			// First ACK: seeds the record, no window computed.
			require.NoError(t, h.ack(1*units.Microsecond, 1000, 100000, hpccHdr(3, hpccHop(hpccCode100G, 0, 0, 0))))
			require.Equal(t, want0, h.U())
			// Second: 400 units of 128 B = 51200 B in 4096 ns.
			require.NoError(t, h.ack(1*units.Microsecond+hpccReviewTau*units.Nanosecond, 2000, 101000,
				hpccHdr(3, hpccHop(hpccCode100G, hpccReviewTau, 400, 0))))
			require.Equal(t, tc.wantU, h.U())
			require.Equal(t, tc.wantW, h.Window())
		})
	}
}

// TestHPCCInitialUMultiRate: in the multi-rate mode every hop's U starts at
// InitialU as well (ns-3: hopState[i].u = 1).
func TestHPCCInitialUMultiRate(t *testing.T) {
	h := newTestHPCC(t, func(c *HPCCConfig) {
		c.MultiRate = true
		c.InitialU = HPCCInitialUOne
	})
	require.NoError(t, h.ack(1*units.Microsecond, 1000, 100000,
		hpccHdr(3, hpccHop(hpccCode100G, 0, 0, 0), hpccHop(hpccCode100G, 0, 0, 0))))
	s := h.State()
	require.Equal(t, fixedpoint.UQ32_32One, s.Hops[0].U)
	require.Equal(t, fixedpoint.UQ32_32One, s.Hops[1].U)
}

// TestHPCCDocStatesChoices: what go doc shows of rp.HPCC states the
// choices the sources leave open: where U starts (hwcc 0, ns-3 1,
// htsim η) and that a hop with Δts = 0 is skipped, on the type.
func TestHPCCDocStatesChoices(t *testing.T) {
	typ := hpccDocs(t, "HPCC")
	for _, want := range []string{"U starts at 0", "ns-3", "htsim", "InitialU", "Δts = 0"} {
		require.Contains(t, typ, want, "rp.HPCC's doc comment")
	}
	cfg := hpccDocs(t, "HPCCConfig")
	require.Contains(t, cfg, "InitialU")
}

// hpccDocs returns the doc comment of type name in this package, with the
// docs of its fields' comments folded in.
func hpccDocs(t *testing.T, name string) string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", nil, parser.ParseComments)
	require.NoError(t, err)
	files := make([]*ast.File, 0)
	for _, f := range pkgs["rp"].Files {
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/hwcc/hwcc/rp")
	require.NoError(t, err)
	for _, ty := range p.Types {
		if ty.Name != name {
			continue
		}
		s := ty.Doc
		// Field comments are part of what go doc prints of a struct.
		for _, spec := range ty.Decl.Specs {
			if ts, ok := spec.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					for _, f := range st.Fields.List {
						s += f.Doc.Text()
					}
				}
			}
		}
		return s
	}
	t.Fatalf("type %s not found", name)
	return ""
}
