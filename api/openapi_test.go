package api

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/sessions"
)

// openAPIDoc is the part of the served document the tests read.
type openAPIDoc struct {
	Servers []struct {
		URL string `json:"url"`
	} `json:"servers"`
	Tags []struct {
		Name string `json:"name"`
	} `json:"tags"`
	Paths      map[string]map[string]docOperation `json:"paths"`
	Components struct {
		Schemas         map[string]docSchema `json:"schemas"`
		SecuritySchemes map[string]struct {
			Type   string `json:"type"`
			Scheme string `json:"scheme"`
		} `json:"securitySchemes"`
	} `json:"components"`
}

type docOperation struct {
	Tags       []string              `json:"tags"`
	Security   []map[string][]string `json:"security"`
	Parameters []struct {
		Name   string    `json:"name"`
		In     string    `json:"in"`
		Schema docSchema `json:"schema"`
	} `json:"parameters"`
	Responses map[string]json.RawMessage `json:"responses"`
}

type docSchema struct {
	Ref        string               `json:"$ref"`
	Type       any                  `json:"type"`
	Enum       []string             `json:"enum"`
	Required   []string             `json:"required"`
	Properties map[string]docSchema `json:"properties"`
}

// TestOpenAPIForClients reads the served document as a client generator
// does: the bearer scheme on every operation, a server to call, a tag for
// each, typed query parameters, the session's status as the engine's enum
// and its always-written fields required, the stream's snapshot reachable,
// and a 4xx answer on each route that refuses anything.
func TestOpenAPIForClients(t *testing.T) {
	r := newRig(t, Options{})
	var doc openAPIDoc
	if err := json.Unmarshal(servedDocument(t, r), &doc); err != nil {
		t.Fatal(err)
	}
	if s := doc.Components.SecuritySchemes[bearerScheme]; s.Type != "http" || s.Scheme != "bearer" {
		t.Errorf("security scheme %q: %+v", bearerScheme, s)
	}
	if len(doc.Servers) == 0 || !strings.HasPrefix(doc.Servers[0].URL, "http://127.0.0.1:") {
		t.Errorf("servers %+v: want a loopback server", doc.Servers)
	}
	tags := map[string]bool{}
	for _, tg := range doc.Tags {
		tags[tg.Name] = true
	}
	used := map[string]bool{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			where := strings.ToUpper(method) + " " + path
			if len(op.Security) != 1 || op.Security[0][bearerScheme] == nil {
				t.Errorf("%s: security %v, want the bearer scheme", where, op.Security)
			}
			if len(op.Tags) != 1 || !tags[op.Tags[0]] {
				t.Errorf("%s: tags %v, want one of the document's", where, op.Tags)
			}
			for _, tg := range op.Tags {
				used[tg] = true
			}
			if strings.Contains(path, "{") || len(op.Parameters) > 0 {
				if !slices.ContainsFunc(slices.Collect(maps.Keys(op.Responses)), func(s string) bool { return strings.HasPrefix(s, "4") && s != "401" && s != "421" }) {
					t.Errorf("%s takes parameters but declares no 4xx of its own: %v", where, slices.Collect(maps.Keys(op.Responses)))
				}
			}
		}
	}
	for tg := range tags {
		if !used[tg] {
			t.Errorf("tag %q tags no operation", tg)
		}
	}
	archived := ""
	for _, p := range doc.Paths["/v1/sessions"]["get"].Parameters {
		if p.Name == "archived" {
			archived, _ = p.Schema.Type.(string)
		}
	}
	if archived != "boolean" {
		t.Errorf("GET /v1/sessions: archived is %q, want boolean", archived)
	}
	session := doc.Components.Schemas["sessions.Session"]
	for _, f := range []string{"id", "status", "mode", "created_at"} {
		if !slices.Contains(session.Required, f) {
			t.Errorf("sessions.Session requires %v: not %s", session.Required, f)
		}
	}
	if got := session.Properties["status"].Ref; got != "#/components/schemas/sessions.Status" {
		t.Errorf("sessions.Session's status is %q, want the sessions.Status enum", got)
	}
	want := []string{string(sessions.Created), string(sessions.Running), string(sessions.Waiting), string(sessions.Paused), string(sessions.Ended)}
	if got := doc.Components.Schemas["sessions.Status"].Enum; !slices.Equal(got, want) {
		t.Errorf("sessions.Status enum %v, want %v", got, want)
	}
	events, err := json.Marshal(doc.Paths["/v1/events"]["get"].Responses["200"])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(events), `"#/components/schemas/Snapshot"`) {
		t.Errorf("GET /v1/events does not reach the Snapshot schema: %s", events)
	}
	// A body requires what the Go client always sends, not the rest.
	if body := doc.Components.Schemas["CreateRequest"]; len(body.Required) != 0 {
		t.Errorf("CreateRequest requires %v: every field of a create is optional", body.Required)
	}
	if body := doc.Components.Schemas["InputRequest"]; !slices.Equal(body.Required, []string{"text"}) {
		t.Errorf("InputRequest requires %v, want [text]", body.Required)
	}
}

// TestProblemCodesHaveStatuses: every problem code the client package
// names (its own, and the engine's it repeats) has its status in
// problemStatus, so a route can declare it: a code added without one
// fails here rather than missing from the document.
func TestProblemCodesHaveStatuses(t *testing.T) {
	engineCodes := map[string]string{}
	for name, v := range codeConsts(t, filepath.Join("..", "engine")) {
		if lit, ok := v.(*ast.BasicLit); ok {
			engineCodes[name] = unquote(lit)
		}
	}
	n := 0
	for name, v := range codeConsts(t, "client") {
		code := ""
		switch v := v.(type) {
		case *ast.BasicLit:
			code = unquote(v)
		case *ast.SelectorExpr:
			code = engineCodes[v.Sel.Name]
		}
		if code == "" {
			t.Errorf("client.%s: its value is not a string nor an engine code", name)
			continue
		}
		n++
		if _, ok := problemStatus[code]; !ok {
			t.Errorf("client.%s (%q) has no status in problemStatus", name, code)
		}
	}
	if n < 40 {
		t.Fatalf("found %d codes in api/client: the parse missed them", n)
	}
}

// codeConsts are the constants named Code... in the package in dir, by
// name, with their value expressions.
func codeConsts(t *testing.T, dir string) map[string]ast.Expr {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]ast.Expr{}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if strings.HasPrefix(name.Name, "Code") && i < len(vs.Values) {
						out[name.Name] = vs.Values[i]
					}
				}
			}
		}
	}
	return out
}

func unquote(lit *ast.BasicLit) string {
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return ""
	}
	return s
}

// TestOpenAPIFieldEnums: each hand-listed field enum names a string field
// of its struct, and the served schema carries it (a misspelt name would
// otherwise do nothing).
func TestOpenAPIFieldEnums(t *testing.T) {
	r := newRig(t, Options{})
	var doc openAPIDoc
	if err := json.Unmarshal(servedDocument(t, r), &doc); err != nil {
		t.Fatal(err)
	}
	for rt, fields := range fieldEnums {
		s, ok := doc.Components.Schemas[schemaName(rt)]
		if !ok {
			t.Errorf("%s: no schema in the document", schemaName(rt))
			continue
		}
		for name, want := range fields {
			if got := s.Properties[name].Enum; !slices.Equal(got, want) {
				t.Errorf("%s.%s: enum %v, want %v", schemaName(rt), name, got, want)
			}
		}
	}
}
