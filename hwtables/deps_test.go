package hwtables_test

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// modulePath is this module's import path.
const modulePath = "github.com/hwcc/hwcc"

// runtimePackages are the packages a NIC or switch model links: the state
// machines and the shared mechanisms they read tables through. Their
// non-test imports, followed transitively, must reach no forbidden package.
var runtimePackages = []string{"hwtables", "cp", "rp", "np", "window"}

// forbidden reports whether a runtime package may not depend on path: the
// generators' and exporters' dependencies, which live in hwtables/gen.
func forbidden(path string) bool {
	return path == "encoding/json" || strings.HasPrefix(path, "go/") || path == modulePath+"/hwtables/gen"
}

// importGraph follows non-test imports with go/build from the packages
// under root (this module's directory) and returns, for every package
// reached, the package that first imported it (the root packages map to "").
func importGraph(t *testing.T, root string, pkgs []string) map[string]string {
	t.Helper()
	parent := make(map[string]string)
	var queue []string
	for _, p := range pkgs {
		path := modulePath + "/" + p
		parent[path] = ""
		queue = append(queue, path)
	}
	ctx := build.Default
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		if path == "C" || path == "unsafe" {
			continue
		}
		var (
			pkg *build.Package
			err error
		)
		if rel, ok := strings.CutPrefix(path, modulePath+"/"); ok {
			pkg, err = ctx.ImportDir(filepath.Join(root, filepath.FromSlash(rel)), 0)
		} else {
			// The standard library is read from GOROOT; a module
			// dependency (golang.org/x/exp) through the go command.
			pkg, err = ctx.Import(path, root, 0)
		}
		require.NoError(t, err, "import %s (imported by %s)", path, parent[path])
		for _, imp := range pkg.Imports {
			if _, seen := parent[imp]; !seen {
				parent[imp] = path
				queue = append(queue, imp)
			}
		}
	}
	return parent
}

// violations returns the chains "root -> ... -> forbidden" in graph, sorted.
func violations(graph map[string]string) []string {
	var out []string
	for p := range graph {
		if !forbidden(p) {
			continue
		}
		chain := []string{p}
		for q := graph[p]; q != ""; q = graph[q] {
			chain = append(chain, q)
		}
		slices.Reverse(chain)
		out = append(out, strings.Join(chain, " -> "))
	}
	slices.Sort(out)
	return out
}

// moduleRoot is the directory of this module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		require.NotEqual(t, dir, up, "go.mod not found")
		dir = up
	}
}

// TestRuntimeDependencies is `go list -deps ./hwtables ./cp ./rp ./np
// ./window` without the go command: no runtime package may reach
// encoding/json, a go/... package or hwtables/gen. On failure it prints the
// import chain.
func TestRuntimeDependencies(t *testing.T) {
	root := moduleRoot(t)
	graph := importGraph(t, root, runtimePackages)
	require.Contains(t, graph, modulePath+"/hwtables", "the walk starts at hwtables")
	require.Contains(t, graph, "math/bits", "the walk follows the standard library")
	if v := violations(graph); len(v) > 0 {
		t.Errorf("runtime packages reach generator dependencies:\n\t%s", strings.Join(v, "\n\t"))
	}
}

// TestRuntimeDependenciesCheckCanFail runs the same walk from hwtables/gen,
// which does import go/format and encoding/json, so that a walk that found
// nothing cannot pass the test above by accident.
func TestRuntimeDependenciesCheckCanFail(t *testing.T) {
	v := violations(importGraph(t, moduleRoot(t), []string{"hwtables/gen"}))
	require.Contains(t, v, modulePath+"/hwtables/gen -> encoding/json")
	require.Contains(t, v, modulePath+"/hwtables/gen -> go/format")
	require.Contains(t, v, modulePath+"/hwtables/gen", "the root itself is forbidden to a runtime package")
	// go/format's own imports are followed too.
	require.Contains(t, v, modulePath+"/hwtables/gen -> go/format -> go/parser")
}
