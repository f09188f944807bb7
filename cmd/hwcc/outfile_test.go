package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOutFile: a regular file is replaced only by commit, an abort leaves
// it as it was, a symbolic link keeps pointing at the file it names (now
// replaced), and a device is written directly.
func TestOutFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))

	o, err := openOut("-o", path)
	require.NoError(t, err)
	_, err = o.WriteString("new")
	require.NoError(t, err)
	o.abort()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "old", string(b), "abort leaves the file")

	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(path, link))
	o, err = openOut("-o", link)
	require.NoError(t, err)
	_, err = o.WriteString("new")
	require.NoError(t, err)
	require.NoError(t, o.commit())
	o.abort() // after commit: nothing
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "new", string(b), "commit replaced the file the link names")
	st, err := os.Lstat(link)
	require.NoError(t, err)
	require.Equal(t, os.ModeSymlink, st.Mode().Type(), "the link is still a link")
	st, err = os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the file keeps its permissions")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "no temporary file is left")

	o, err = openOut("-o", os.DevNull)
	require.NoError(t, err)
	require.Empty(t, o.tmp, "a device is written directly")
	_, err = o.WriteString("x")
	require.NoError(t, err)
	require.NoError(t, o.commit())

	_, err = openOut("-o", dir)
	require.ErrorContains(t, err, "is a directory")
}
