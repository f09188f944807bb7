package inttel

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/stretchr/testify/require"
)

func TestDefaultConfigIsHPCC(t *testing.T) {
	cfg := DefaultConfig()
	// Section 4.1: txBytes "in units of 128 Bytes", qLen "in units of 80
	// Bytes"; TS in ns; "no more than 5 hops".
	require.Equal(t, units.Bytes(128), cfg.TxBytesUnit)
	require.Equal(t, units.Bytes(80), cfg.QLenUnit)
	require.Equal(t, units.Nanosecond, cfg.TSUnit)
	require.Equal(t, 5, cfg.MaxHops)
	require.Equal(t, DefaultSpeedCodes(), cfg.Speeds)
	c := mustCodec(t, cfg)
	require.Equal(t, cfg, c.Config())
	require.Equal(t, 5, c.MaxHops())
	require.Equal(t, 8, c.Speeds().Len())
	r, ok := c.Rate(6)
	require.True(t, ok)
	require.Equal(t, 400*units.Gbps, r)
	code, ok := c.Code(40 * units.Gbps)
	require.True(t, ok)
	require.Equal(t, uint8(2), code)
}

func TestNewCodecCopiesSpeeds(t *testing.T) {
	cfg := DefaultConfig()
	c := mustCodec(t, cfg)
	cfg.Speeds[6].Rate = 7 // caller edits its slice afterwards
	r, ok := c.Rate(6)
	require.True(t, ok)
	require.Equal(t, 400*units.Gbps, r)
}

func TestNewCodecErrors(t *testing.T) {
	cases := []struct {
		name               string
		edit               func(*Config)
		field, value, want string
	}{
		{"TxBytesUnit 0", func(c *Config) { c.TxBytesUnit = 0 }, "Config.TxBytesUnit", "0B", "1B..4.294967296GB"},
		{"TxBytesUnit negative", func(c *Config) { c.TxBytesUnit = -128 }, "Config.TxBytesUnit", "-128B", "1B..4.294967296GB"},
		{"TxBytesUnit too big", func(c *Config) { c.TxBytesUnit = 1<<32 + 1 }, "Config.TxBytesUnit", "4.294967297GB", "1B..4.294967296GB"},
		{"QLenUnit 0", func(c *Config) { c.QLenUnit = 0 }, "Config.QLenUnit", "0B", "1B..4.294967296GB"},
		{"QLenUnit too big", func(c *Config) { c.QLenUnit = 1 << 40 }, "Config.QLenUnit", units.Bytes(1 << 40).String(), "1B..4.294967296GB"},
		{"TSUnit 0", func(c *Config) { c.TSUnit = 0 }, "Config.TSUnit", "0s", "1ps..4.294967296ms"},
		{"TSUnit too big", func(c *Config) { c.TSUnit = units.Second }, "Config.TSUnit", "1s", "1ps..4.294967296ms"},
		{"MaxHops 0", func(c *Config) { c.MaxHops = 0 }, "Config.MaxHops", "0", "1..15 (4-bit nHop)"},
		{"MaxHops 16", func(c *Config) { c.MaxHops = 16 }, "Config.MaxHops", "16", "1..15 (4-bit nHop)"},
		{"no speeds", func(c *Config) { c.Speeds = nil }, "Config.Speeds", "0 entries", "1..16 entries (4-bit code)"},
		{"bad speed", func(c *Config) { c.Speeds[3].Code = 20 }, "Config.Speeds[3].Code", "20", "0..15 (4 bits)"},
		{"speed 0", func(c *Config) { c.Speeds[2].Rate = 0 }, "Config.Speeds[2].Rate", "0bps", "> 0"},
		{"code twice", func(c *Config) { c.Speeds[2].Code = 1 }, "Config.Speeds[2].Code", "1", "a code used once (it is 25Gbps already)"},
		{"rate twice", func(c *Config) { c.Speeds[2].Rate = 10 * units.Gbps }, "Config.Speeds[2].Rate", "10Gbps", "a rate used once (it has code 0 already)"},
	}
	for _, tc := range cases {
		cfg := DefaultConfig()
		tc.edit(&cfg)
		c, err := NewCodec(cfg)
		require.Nil(t, c, tc.name)
		require.ErrorIs(t, err, ErrConfig, tc.name)
		require.ErrorIs(t, err, cc.ErrConfig, tc.name)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, tc.name)
		require.Equal(t, tc.field, ce.Field, tc.name)
		require.Equal(t, tc.value, ce.Value, tc.name)
		require.Equal(t, tc.want, ce.Range, tc.name)
	}
}

func TestNewCodecBoundaries(t *testing.T) {
	// The ends of every range are accepted.
	for _, edit := range []func(*Config){
		func(c *Config) { c.TxBytesUnit, c.QLenUnit, c.TSUnit, c.MaxHops = 1, 1, 1, 1 },
		func(c *Config) {
			c.TxBytesUnit, c.QLenUnit, c.TSUnit, c.MaxHops = MaxByteUnit, MaxByteUnit, MaxTSUnit, 15
		},
		// ns-3's INT_MULTI = 4: units scaled together.
		func(c *Config) { c.TxBytesUnit, c.QLenUnit = 128*4, 80*4 },
	} {
		cfg := DefaultConfig()
		edit(&cfg)
		c := mustCodec(t, cfg)
		require.Equal(t, cfg, c.Config())
	}
}
