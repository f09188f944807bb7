package trace_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/trace"
)

// TestHeaderRefusals: a header with a field given twice, at any depth, or
// an env value no part can be built with, is an error on line 1 naming
// the field, before any event is read. Each row changes one field of a
// header that reads.
func TestHeaderRefusals(t *testing.T) {
	hdr := `{"hwcc_trace":2,"version":"devel","algorithm":"dcqcn","part":"rp","role":"RP","settings":{},"env":{"rate":100000000000,"payload":1000}}`
	_, _, err := trace.ReadAll(strings.NewReader(hdr + "\n"))
	require.NoError(t, err, "the unchanged header reads")
	for _, c := range []struct {
		name, text, field, says string
	}{
		{"algorithm twice", strings.Replace(hdr, `"part"`, `"algorithm":"hpcc","part"`, 1), "algorithm", "given twice"},
		{"env field twice", strings.Replace(hdr, `"payload":1000`, `"payload":1000,"rate":1`, 1), "env.rate", "given twice"},
		{"setting twice", strings.Replace(hdr, `"settings":{}`, `"settings":{"t":"1us","t":"2us"}`, 1), "settings.t", "given twice"},
		{"negative rate", strings.Replace(hdr, `100000000000`, `-1`, 1), "env.rate", "-1: want > 0"},
		{"zero rate", strings.Replace(hdr, `100000000000`, `0`, 1), "env.rate", "0: want > 0 (leave the field out when it is unknown)"},
		{"zero bottleneck", strings.Replace(hdr, `"payload"`, `"bottleneck":0,"payload"`, 1), "env.bottleneck", "want > 0"},
		{"negative payload", strings.Replace(hdr, `1000}`, `-1}`, 1), "env.payload", "-1: want >= 0"},
		{"negative size", strings.Replace(hdr, `"payload"`, `"size":-5,"payload"`, 1), "env.size", "-5: want >= 0"},
		{"negative base_rtt", strings.Replace(hdr, `"payload"`, `"base_rtt":-5,"payload"`, 1), "env.base_rtt", "-5: want >= 0"},
		{"negative switch port rate", strings.Replace(hdr, `"payload"`, `"switch_ports":[{"rate":-1}],"payload"`, 1), "env.switch_ports.0.rate", "want a rate >= 0"},
	} {
		_, _, err := trace.ReadAll(strings.NewReader(c.text + "\n"))
		require.Error(t, err, c.name)
		var te *trace.Error
		require.True(t, errors.As(err, &te), "%s: %T %v", c.name, err, err)
		require.Equal(t, 1, te.Line, "%s: %v", c.name, err)
		require.Equal(t, c.field, te.Field, "%s: %v", c.name, err)
		require.ErrorContains(t, err, c.says, c.name)
	}
}
