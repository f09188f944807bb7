package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// outFile is an output file the command writes in full or not at all. A
// regular file (existing or not) is written to a temporary file beside
// it, which commit renames over it, so that a run that fails leaves the
// file as it was; a device or pipe (/dev/stdout, /dev/null, a FIFO) is
// written directly. openOut creates it before the work starts, so an
// unwritable path is an error before the work, not after.
type outFile struct {
	*os.File
	path string // the file to replace ("" for a device or pipe)
	tmp  string // the temporary file, renamed to path by commit
	done bool   // committed or aborted
}

// openOut checks that path can be written and opens its outFile. flag
// names the flag that gave path, for errors ("-o", "-trace").
func openOut(flag, path string) (*outFile, error) {
	if path == "" {
		return nil, fmt.Errorf("%s: an empty file name", flag)
	}
	target := path
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		switch {
		case st.IsDir():
			return nil, fmt.Errorf("%s %s: is a directory, not a file", flag, path)
		case !st.Mode().IsRegular():
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", flag, err)
			}
			return &outFile{File: f}, nil
		}
		// Replace the file a symbolic link names, not the link.
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		// An existing file we may not write stays unwritable: the
		// rename would replace it.
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		f.Close()
		mode = st.Mode().Perm()
	}
	// Any other Stat error (no such file, a path through a file) is
	// CreateTemp's to report, naming the directory.
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s %s: cannot create a file in %s: %w", flag, path, dir, err)
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return &outFile{File: f, path: target, tmp: f.Name()}, nil
}

// commit closes the file and renames it over its path. After an error
// the path is unchanged and the temporary file removed.
func (o *outFile) commit() error {
	if o.done {
		return errors.New("output file committed twice")
	}
	o.done = true
	err := o.File.Close()
	if o.tmp == "" {
		return err
	}
	if err == nil {
		err = os.Rename(o.tmp, o.path)
	}
	if err != nil {
		os.Remove(o.tmp)
	}
	return err
}

// abort closes the file and removes it, leaving its path as it was. It
// does nothing after commit, so it can be deferred.
func (o *outFile) abort() {
	if o.done {
		return
	}
	o.done = true
	o.File.Close()
	if o.tmp != "" {
		os.Remove(o.tmp)
	}
}

// checkOutDir creates dir if missing and checks that files can be
// created in it (-out DIR), before a run.
func checkOutDir(dir string) error {
	if dir == "" {
		return errors.New("-out: an empty directory name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	f, err := os.CreateTemp(dir, ".hwcc-out-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("-out %s: cannot create files in it: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
