package cli

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/atelier-studio/atelier"

// moduleImports parses the Go files of the module and returns, per package
// folder relative to the module root ("." for main), the module's packages
// it imports. Test files are left out: a harness's integration tests may
// drive it through the engine without the harness depending on it.
func moduleImports(t *testing.T) map[string]map[string]bool {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		if out[rel] == nil {
			out[rel] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if p == module {
				out[rel]["."] = true
			} else if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				out[rel][rest] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// under reports whether pkg is top or inside it.
func under(pkg, top string) bool { return pkg == top || strings.HasPrefix(pkg, top+"/") }

// TestImportDirection keeps the import direction of DESIGN.md §2 (and
// docs/architecture.md): tui → core → sessions, files, terminal, harness.
func TestImportDirection(t *testing.T) {
	rules := []struct {
		rule string
		bad  func(from, to string) bool
	}{
		{"nothing but the entry (main, cli) imports tui", func(from, to string) bool {
			return under(to, "tui") && !under(from, "tui") && from != "." && from != "cli"
		}},
		{"only tui imports themes", func(from, to string) bool {
			return under(to, "themes") && !under(from, "tui") && !under(from, "themes") && from != "cli" && from != "."
		}},
		{"harness never imports core", func(from, to string) bool {
			return under(from, "harness") && (under(to, "core") || under(to, "tui"))
		}},
		{"sessions, files and terminal never import core, tui or harness", func(from, to string) bool {
			low := under(from, "sessions") || under(from, "files") || under(from, "terminal")
			return low && (under(to, "core") || under(to, "tui") || under(to, "harness"))
		}},
		{"core never imports tui or cli", func(from, to string) bool {
			return under(from, "core") && (under(to, "tui") || under(to, "cli"))
		}},
		{"core is handed its container backend: it never imports terminal/docker", func(from, to string) bool {
			return under(from, "core") && under(to, "terminal/docker")
		}},
		{"config imports no other Atelier package", func(from, to string) bool {
			return under(from, "config") && !under(to, "config") && !under(to, "internal")
		}},
		{"notify imports no other Atelier package", func(from, to string) bool {
			return under(from, "notify") && !under(to, "notify")
		}},
		{"api/client never imports core: it speaks the wire types", func(from, to string) bool {
			return under(from, "api/client") && under(to, "core")
		}},
		{"attach never imports tui or cli", func(from, to string) bool {
			return under(from, "attach") && (under(to, "tui") || under(to, "cli"))
		}},
		{"instances sits below the engine: it imports files, sessions and internal only", func(from, to string) bool {
			return under(from, "instances") && !under(to, "instances") && !under(to, "files") && !under(to, "sessions") && !under(to, "internal")
		}},
		{"workflow and trigger sit above the engine: nothing below them imports them", func(from, to string) bool {
			above := under(to, "workflow") || under(to, "trigger")
			return above && (under(from, "core") || under(from, "sessions") || under(from, "files") || under(from, "terminal") || under(from, "harness") || under(from, "config"))
		}},
		{"api and attach meet at the client and the engine's types, not at each other's internals", func(from, to string) bool {
			return (under(from, "attach") && to == "api") || (from == "api" && under(to, "attach"))
		}},
		{"engine is a leaf: it imports sessions only", func(from, to string) bool {
			return under(from, "engine") && !under(to, "engine") && !under(to, "sessions")
		}},
		{"only main imports cli", func(from, to string) bool {
			return under(to, "cli") && from != "." && !under(from, "cli")
		}},
	}
	imports := moduleImports(t)
	if len(imports) < 10 {
		t.Fatalf("found only %d packages", len(imports))
	}
	for from, tos := range imports {
		for to := range tos {
			for _, r := range rules {
				if r.bad(from, to) {
					t.Errorf("%s imports %s: %s", from, to, r.rule)
				}
			}
		}
	}
}

// TestArchitectureDoc keeps docs/architecture.md's package map true: every
// top-level package of the module is described there.
func TestArchitectureDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for pkg := range moduleImports(t) {
		top, _, _ := strings.Cut(pkg, "/")
		if top == "." || top == "internal" {
			continue
		}
		if !strings.Contains(string(doc), "`"+top+"/`") {
			missing = append(missing, top)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("docs/architecture.md does not describe %s", strings.Join(uniq(missing), ", "))
	}
}

func uniq(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
