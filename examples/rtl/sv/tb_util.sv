// tb_util: what every bench shares: its selection, a seeded generator, and
// the mismatch report.
// Testbench code: widths are the simulator's business here.
// verilator lint_off WIDTH
package tb_util;
  // selected reports whether the plusargs ask for the bench called name.
  function automatic bit selected(string name);
    string b;
    return $value$plusargs("bench=%s", b) && b == name;
  endfunction

  // wrong reports whether the plusargs ask for the wrong variant.
  function automatic bit wrong();
    return $test$plusargs("wrong");
  endfunction

  // plusarg returns the integer plusarg NAME=, or def.
  function automatic longint plusarg(string name, longint def);
    longint v;
    if ($value$plusargs({name, "=%d"}, v)) return v;
    return def;
  endfunction

  // rng is splitmix64: the same stimulus for a seed on every simulator.
  class rng;
    local longint unsigned s;
    function new(longint unsigned seed);
      s = seed;
    endfunction
    function longint unsigned next();
      longint unsigned z;
      s += 64'h9e3779b97f4a7c15;
      z = s;
      z = (z ^ (z >> 30)) * 64'hbf58476d1ce4e5b9;
      z = (z ^ (z >> 27)) * 64'h94d049bb133111eb;
      return z ^ (z >> 31);
    endfunction
    // below returns a number in [0, n), n > 0.
    function longint unsigned below(longint unsigned n);
      return next() % n;
    endfunction
  endclass

  // mismatch reports a register whose value differs and stops the run.
  function automatic void mismatch(longint cycle, string reg_name, longint rtl, longint want,
                                   int event_n, string inputs);
    $display("MISMATCH cycle %0d register %s rtl %0d hwcc %0d event %0d inputs: %s",
             cycle, reg_name, rtl, want, event_n, inputs);
    $fatal(1, "hwcc-rtl: the RTL differs from hwcc");
  endfunction
endpackage
