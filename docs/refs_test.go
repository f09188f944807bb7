// Package docs holds hwcc's long-form documentation (markdown) and the test
// that keeps every citation in the module resolvable: docs/references.md is
// the bibliography that "[Name] §section" citations point into.
package docs

import (
	"bufio"
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/hwcc/hwcc/algos" // registers the algorithms whose "algo/part" names the docs use
	"github.com/hwcc/hwcc/cc"
)

// root is the module's root directory, from this package's directory.
const root = ".."

// thisFile is this test's own name: it spells out the patterns it looks
// for, so it is left out of the walk.
const thisFile = "docs/refs_test.go"

// modulePath is the import path prefix a comment may name a package by.
const modulePath = "github.com/hwcc/hwcc/"

// The patterns. Each is assembled from pieces so that this file's text
// does not match them itself.
var (
	// outside names a file that was never part of the module: the papers'
	// plain-text copies and the notes the project was written from.
	outside = regexp.MustCompile(`papers` + `/|\.\./` + `shared|\b(?:REFERENCE|DESIGN|STYLE)\.` + `md\b`)

	// txt is a .txt file named in prose; the only ones in the module are
	// the workload distributions, so a paper's file name fails.
	txt = regexp.MustCompile(`[A-Za-z0-9_./-]+\.` + `txt\b`)

	// repoPath is a relative path with a file extension of the kinds the
	// module holds (in .go comments and in .md prose).
	repoPath = regexp.MustCompile(`(?:\.{1,2}/)?[A-Za-z0-9_-][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.-]+)*\.(?:md|go|json|svg|sh)\b`)

	// slashPath is a relative path of two or more segments.
	slashPath = regexp.MustCompile(`(?:\./)?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+/?`)

	// mdLink is a markdown link or image: [text](target).
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

	// backticked is a markdown code span without spaces.
	backticked = regexp.MustCompile("`([^`\\s]+)`")

	// citation is [Name] standing alone: not an index (a[i]), not a type
	// ([]T, [N]T), not a markdown link ([x](y)) or a link definition.
	citation = regexp.MustCompile(`(?:^|[^A-Za-z0-9_\])])\[([A-Z][A-Za-z0-9+-]+)\](?:$|[^A-Za-z0-9_(:\]])`)

	// linkDef is a markdown reference-style link definition: [Name]: url.
	linkDef = regexp.MustCompile(`(?m)^\[([^\]]+)\]:\s`)

	// refDef is an entry of docs/references.md: a line that opens with
	// **[Name]**.
	refDef = regexp.MustCompile(`(?m)^\*\*\[([A-Za-z0-9+-]+)\]\*\*`)

	// history is a mention of the project's history instead of what a thing
	// is: an issue or session by number, "#18", the issue or brief a change
	// came from, a review. The register position "(#18)" of docs/trace.md
	// is not one (preceded by a parenthesis).
	history = regexp.MustCompile(`(?i)\bissues?\s+#?[0-9]+|\bsessions?\s+[0-9]+|(?:^|\s)#[0-9]+\b|\bthe (?:issue|brief)\b|\b` + `review\b`)

	// template is a placeholder path segment (NAME, DIR, ALGO).
	template = regexp.MustCompile(`(?:^|/)[A-Z]{3,}(?:[./]|$)`)
)

// finding is one reference that does not resolve.
type finding struct {
	file string
	line int
	what string
}

func (f finding) String() string { return fmt.Sprintf("%s:%d: %s", f.file, f.line, f.what) }

// checker walks the module once and collects findings.
type checker struct {
	files   map[string]bool // every file and directory, slash-separated, relative to root
	top     map[string]bool // root's entries
	ignored []string        // directory names the .gitignore files list (generated output)
	refs    map[string]bool // names docs/references.md defines
	parts   map[string]bool // "algo/part" names of the cc registry
	found   []finding
}

func newChecker(t *testing.T) *checker {
	c := &checker{files: map[string]bool{}, top: map[string]bool{}, refs: map[string]bool{}, parts: map[string]bool{}}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git") {
			return filepath.SkipDir
		}
		c.files[rel] = true
		if !strings.Contains(rel, "/") {
			c.top[rel] = true
		}
		if d.Name() == ".gitignore" {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, l := range strings.Split(string(data), "\n") {
				if l = strings.TrimSpace(l); strings.HasSuffix(l, "/") && !strings.HasPrefix(l, "#") {
					c.ignored = append(c.ignored, strings.Trim(l, "/"))
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	bib, err := os.ReadFile(filepath.Join(root, "docs", "references.md"))
	require.NoError(t, err)
	for _, m := range refDef.FindAllStringSubmatch(string(bib), -1) {
		require.False(t, c.refs[m[1]], "docs/references.md defines [%s] twice", m[1])
		c.refs[m[1]] = true
	}
	for _, a := range cc.Algorithms() {
		for _, p := range a.Parts {
			c.parts[a.Name+"/"+p.Name] = true
		}
	}
	return c
}

func (c *checker) add(file string, line int, format string, args ...any) {
	c.found = append(c.found, finding{file, line, fmt.Sprintf(format, args...)})
}

// exists reports whether p, written in file, names a file or directory of
// the module: relative to the root, to the file's directory, or to the
// root once the module's import path is stripped.
func (c *checker) exists(file, p string) bool {
	p = strings.TrimPrefix(p, modulePath)
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return true
	}
	for _, cand := range []string{path.Clean(p), path.Clean(path.Join(path.Dir(file), p))} {
		if c.files[cand] {
			return true
		}
	}
	return false
}

// generated reports whether p lies in a directory the .gitignore files
// list as generated output (build/, out/).
func (c *checker) generated(p string) bool {
	for _, seg := range strings.Split(strings.Trim(p, "/"), "/") {
		if slices.Contains(c.ignored, seg) {
			return true
		}
	}
	return false
}

// prose checks one piece of text (a comment, a string, a markdown line).
func (c *checker) prose(file string, line int, text string, isMarkdown bool) {
	for _, m := range history.FindAllString(text, -1) {
		c.add(file, line, "mentions %q: say what the thing is, not the issue, session or review it came from", strings.TrimSpace(m))
	}
	for _, m := range outside.FindAllString(text, -1) {
		c.add(file, line, "names %q, which is outside the module: cite docs/references.md or a docs/ file", m)
	}
	for _, m := range txt.FindAllString(text, -1) {
		if !outside.MatchString(m) && !c.existsAnywhere(m) {
			c.add(file, line, "names %q, which is not in the module", m)
		}
	}
	for _, m := range citation.FindAllStringSubmatch(text, -1) {
		if !c.refs[m[1]] {
			c.add(file, line, "cites [%s], which docs/references.md does not define", m[1])
		}
	}
	// Markdown code spans and links are checked as a whole (below); prose
	// paths in a markdown line are checked outside them.
	rest := text
	if isMarkdown {
		rest = backticked.ReplaceAllString(mdLink.ReplaceAllString(text, "]"), "")
	}
	for _, m := range repoPath.FindAllString(rest, -1) {
		c.path(file, line, m)
	}
}

// bare reports whether p is a file name without a directory: output files
// (report.json) and files of the package at hand (doc.go) are named so.
func bare(p string) bool { return !strings.Contains(strings.TrimPrefix(p, "./"), "/") }

// existsAnywhere reports whether p is the tail of some file's path.
func (c *checker) existsAnywhere(p string) bool {
	p = strings.TrimPrefix(path.Clean(p), "./")
	for f := range c.files {
		if f == p || strings.HasSuffix(f, "/"+p) {
			return true
		}
	}
	return false
}

// path checks a path-like token: one that begins with a directory of the
// module's root (or a file extension it holds) must exist.
func (c *checker) path(file string, line int, p string) {
	if strings.Contains(p, "://") || strings.HasPrefix(p, "/") || template.MatchString(p) || c.generated(p) {
		return
	}
	if bare(p) {
		// A bare name is checked only if it names documentation, which
		// must be somewhere in the module.
		if strings.HasSuffix(p, ".md") && !c.existsAnywhere(p) {
			c.add(file, line, "names %q, which is not in the module", p)
		}
		return
	}
	q := strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "./")
	first, _, _ := strings.Cut(q, "/")
	if !c.top[first] && !strings.HasPrefix(q, "../") && !repoPath.MatchString(q) {
		return // not a path into this module (x/exp/constraints, Gb/s)
	}
	if c.parts[strings.TrimSuffix(q, "/")] {
		return // a registry name, "algo/part"
	}
	if !c.exists(file, p) {
		c.add(file, line, "names %q, which does not exist in the module", p)
	}
}

// markdown checks a .md file line by line: its prose, links and code spans.
func (c *checker) markdown(file string, data []byte) {
	defs := map[string]bool{}
	for _, m := range linkDef.FindAllStringSubmatch(string(data), -1) {
		defs[m[1]] = true
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 1<<20)
	fenced := false
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			// Commands and program text: their file names are the
			// user's (old.txt, out/), so only what leaves the module
			// is checked.
			for _, m := range outside.FindAllString(l, -1) {
				c.add(file, n, "names %q, which is outside the module", m)
			}
			for _, m := range history.FindAllString(l, -1) {
				c.add(file, n, "mentions %q: say what the thing is", strings.TrimSpace(m))
			}
			continue
		}
		for _, m := range citation.FindAllStringSubmatch(l, -1) {
			if defs[m[1]] {
				l = strings.ReplaceAll(l, "["+m[1]+"]", m[1]) // a link reference, not a citation
			}
		}
		c.prose(file, n, l, true)
		for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, ":") {
				continue // an anchor in the same file, or a URL
			}
			if !c.exists(file, target) {
				c.add(file, n, "links to %q, which does not exist in the module", target)
			}
		}
		for _, m := range backticked.FindAllStringSubmatch(l, -1) {
			for _, p := range slashPath.FindAllString(m[1], -1) {
				c.path(file, n, p)
			}
			if !strings.Contains(m[1], "/") && repoPath.MatchString(m[1]) && repoPath.FindString(m[1]) == m[1] {
				c.path(file, n, m[1])
			}
		}
	}
}

// goFile checks a .go file's comments and string literals.
func (c *checker) goFile(t *testing.T, file string, data []byte) {
	fset := token.NewFileSet()
	tf := fset.AddFile(file, -1, len(data))
	var s scanner.Scanner
	s.Init(tf, data, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return
		}
		line := fset.Position(pos).Line
		switch tok {
		case token.COMMENT:
			for i, l := range strings.Split(lit, "\n") {
				c.prose(file, line+i, l, false)
			}
		case token.STRING:
			v, err := strconv.Unquote(lit)
			if err != nil {
				v = lit
			}
			// Strings are data the code uses (file names included), so
			// only what leaves the module and citations are checked.
			for _, m := range outside.FindAllString(v, -1) {
				c.add(file, line, "names %q, which is outside the module: cite docs/references.md", m)
			}
			for _, m := range citation.FindAllStringSubmatch(v, -1) {
				if !c.refs[m[1]] {
					c.add(file, line, "cites [%s], which docs/references.md does not define", m[1])
				}
			}
			for _, m := range history.FindAllString(v, -1) {
				c.add(file, line, "mentions %q: say what the thing is", strings.TrimSpace(m))
			}
		}
	}
}

// TestReferencesResolve walks every .go and .md file of the module and
// fails on each reference a user could not follow from a copy of the
// module: a file outside it (the papers' text copies, the notes it was
// written from), a markdown link, code span or comment path that names a
// file or directory the module does not hold, a citation [Name] that
// docs/references.md does not define, and a mention of the project's
// history (an issue or session number, a review) where the text should say
// what the thing is.
func TestReferencesResolve(t *testing.T) {
	c := newChecker(t)
	require.NotEmpty(t, c.refs, "docs/references.md defines no **[Name]** entries")
	var names []string
	for f := range c.files {
		if (strings.HasSuffix(f, ".go") || strings.HasSuffix(f, ".md")) && f != thisFile {
			names = append(names, f)
		}
	}
	slices.Sort(names)
	for _, f := range names {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		require.NoError(t, err)
		if strings.HasSuffix(f, ".md") {
			c.markdown(f, data)
		} else {
			c.goFile(t, f, data)
		}
	}
	for _, f := range c.found {
		t.Error(f)
	}
}

// TestCheckerFlags: the checker flags each kind of unresolvable reference
// and passes the forms the module uses, on lines written for the purpose
// (so that TestReferencesResolve passing means the walk found nothing, not
// that the patterns match nothing).
func TestCheckerFlags(t *testing.T) {
	c := newChecker(t)
	bad := []string{
		"see " + "papers" + "/rocc.txt section IV",
		"as " + "REFERENCE" + ".md says",
		"the " + "../" + "shared notes",
		"mercury" + ".txt, Figure 4",
		"[NoSuchSource] §2",
		"`harness/nosuch`",
		"`docs/nosuch.md`",
		"[text](nosuch.md)",
		"as " + "issue" + " 13 asks",
		"measured in " + "session" + " 8",
		"fixes " + "#" + "18",
		"the " + "brief" + "'s numbers",
	}
	for _, l := range bad {
		c.found = nil
		c.markdown("docs/example.md", []byte(l+"\n"))
		require.NotEmpty(t, c.found, "not flagged: %q", l)
	}
	good := []string{
		"[RoCC] §IV-B, Algorithm 1",
		"`harness/algos` and `docs/references.md`",
		"[the bibliography](references.md)",
		"`hiercc/sw` (a registry name), `examples/ns3/build/` (generated)",
		"a[i] and [N]byte and [x](https://example.com)",
		"`examples/scenarios/NAME.json`",
		"the register's position, `host (#18)`",
	}
	for _, l := range good {
		c.found = nil
		c.markdown("docs/example.md", []byte(l+"\n"))
		require.Empty(t, c.found, "flagged: %q", l)
	}
	// In Go source: comments and string literals.
	for _, src := range []string{
		"package p\n// See " + "papers" + "/hpcc.txt section 3.\nvar x = 1\n",
		"package p\nconst s = \"[NoSuchSource] §1\"\n",
		"package p\n// The table in docs/nosuch.md.\nvar x = 1\n",
	} {
		c.found = nil
		c.goFile(t, "cp/example.go", []byte(src))
		require.NotEmpty(t, c.found, "not flagged: %q", src)
	}
	c.found = nil
	c.goFile(t, "cp/example.go", []byte("package p\n// [HPCC] §4.1; see docs/derivations.md and rocc.go.\nvar a [4]int\nvar b = a[1]\n"))
	require.Empty(t, c.found)
}
