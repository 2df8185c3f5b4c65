package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// studioFiles parses the package's own files (not its tests).
func studioFiles(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]*ast.File{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = f
	}
	return out
}

// receiverName names a method's receiver type, without the star.
func receiverName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	e := fn.Recv.List[0].Type
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// typeName names the type an assertion or a case names, without the star.
func typeName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestOnlyTheTabSetKnowsTheKindsOfTab keeps the root routing by id: no
// file but tabset.go asserts or switches on a concrete kind of tab (a
// type with a TabID method) or on rawTab. A tab's keys, paste, messages,
// styles and saved state go through the tab interface.
func TestOnlyTheTabSetKnowsTheKindsOfTab(t *testing.T) {
	files := studioFiles(t, ".")
	kinds := map[string]bool{"rawTab": true}
	for _, f := range files {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "TabID" {
				if r := receiverName(fn); r != "" && !strings.HasSuffix(r, "Msg") {
					kinds[r] = true
				}
			}
		}
	}
	for _, k := range []string{"sessionTab", "editorTab", "termTab", "diffTab", "settingsTab", "workspacesTab"} {
		if !kinds[k] {
			t.Fatalf("%s has no TabID method: the kinds found are %v", k, kinds)
		}
	}
	var bad []string
	for name, f := range files {
		if name == "tabset.go" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				if n.Type != nil && kinds[typeName(n.Type)] {
					bad = append(bad, name+": asserts "+typeName(n.Type))
				}
			case *ast.TypeSwitchStmt:
				for _, c := range n.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						if kinds[typeName(e)] {
							bad = append(bad, name+": switches on "+typeName(e))
						}
					}
				}
			}
			return true
		})
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("only tabset.go may name a kind of tab in an assertion or a switch:\n%s", strings.Join(bad, "\n"))
	}
}

// TestDialogsHaveNoIntent keeps dialogs answering through the
// continuation they were opened with (dialogs.go): their result carries
// no intent for the root to switch on.
func TestDialogsHaveNoIntent(t *testing.T) {
	for name, f := range studioFiles(t, "dialog") {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "Result" {
				return true
			}
			for _, fld := range ts.Type.(*ast.StructType).Fields.List {
				for _, id := range fld.Names {
					if id.Name == "Intent" {
						t.Errorf("%s: dialog.Result has an Intent field again", name)
					}
				}
			}
			return true
		})
	}
}

// appMethodCeiling is how many methods tui.App may have: under 60, and it
// only comes down. The root routes; state and behaviour belong to the part
// that owns them (studio.go lists what the parts share; instances.go,
// work.go, historypart.go, settings.go, control.go, chrome.go, journal.go,
// tabstate.go and layout.go's screen are the parts).
const appMethodCeiling = 164

// TestTheRootDoesNotGrow counts App's methods against the ceiling.
func TestTheRootDoesNotGrow(t *testing.T) {
	n := 0
	for _, f := range studioFiles(t, ".") {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && receiverName(fn) == "App" {
				n++
			}
		}
	}
	if n > appMethodCeiling {
		t.Errorf("tui.App has %d methods, over the ceiling of %d: give the new behaviour to the part that owns its state", n, appMethodCeiling)
	}
}

// TestDialogKeysAreData keeps the dialogs' keys in their tables
// (dialog/keys.go): no dialog's HandleKey switches on the name of the key
// pressed or compares it with a literal, so what the help and
// docs/keybindings.md list is what acts.
func TestDialogKeysAreData(t *testing.T) {
	isKeyName := func(e ast.Expr) bool {
		c, ok := e.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "String"
	}
	for name, f := range studioFiles(t, "dialog") {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "HandleKey" || fn.Body == nil {
				continue
			}
			// Names bound to the key's name: k := msg.String().
			named := map[string]bool{}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 && isKeyName(as.Rhs[0]) {
					if id, ok := as.Lhs[0].(*ast.Ident); ok {
						named[id.Name] = true
					}
				}
				return true
			})
			keyName := func(e ast.Expr) bool {
				if id, ok := e.(*ast.Ident); ok {
					return named[id.Name]
				}
				return isKeyName(e)
			}
			isLit := func(e ast.Expr) bool { l, ok := e.(*ast.BasicLit); return ok && l.Kind == token.STRING }
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SwitchStmt:
					if n.Tag != nil && keyName(n.Tag) {
						t.Errorf("%s: %s's HandleKey switches on the key's name, not on its table", name, receiverName(fn))
					}
				case *ast.BinaryExpr:
					if (keyName(n.X) && isLit(n.Y)) || (keyName(n.Y) && isLit(n.X)) {
						t.Errorf("%s: %s's HandleKey compares the key's name with a literal, not with its table", name, receiverName(fn))
					}
				}
				return true
			})
		}
	}
}
