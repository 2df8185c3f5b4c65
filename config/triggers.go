package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/robfig/cron/v3"
)

// Triggers start work by themselves: a session of an agent with a prompt,
// or a workflow, when a named event fires, on a schedule, or when files of
// the workspace change. They belong to one workspace: its trusted
// .atelier.toml holds them as [[triggers]], the user's config.toml as
// [[workspaces."PATH".triggers]]. Everything a trigger says is checked
// here, at load (its schedule parsed, its templates compiled), so a
// trigger that loads is one the engine host can run.

// Trigger is one trigger of the workspace.
type Trigger struct {
	Name string
	// Exactly one condition is set.
	OnEvent  string // a named event (`atelier events fire NAME`)
	Schedule string // a cron expression or a descriptor, "@every 30m"
	OnChange string // a glob of workspace paths ("**/*.go")
	// Exactly one of Agent/Prompt (Agent may be empty: the default agent)
	// and Workflow/Input is used.
	Agent    string
	Prompt   string // text/template source
	Workflow string
	Input    string // text/template source that renders to JSON
	// File and Line say where the trigger is written.
	File string
	Line int

	// Cron is Schedule parsed; nil for the other conditions.
	Cron cron.Schedule
	// PromptTemplate and InputTemplate are compiled with missingkey=error
	// and TemplateFuncs; the one not used is nil.
	PromptTemplate *template.Template
	InputTemplate  *template.Template
}

// Condition says when the trigger fires, as it is written:
// `on_event "deploy"`, `schedule "@every 30m"`, `on_change "*.go"`.
func (t Trigger) Condition() string {
	switch {
	case t.OnEvent != "":
		return "on_event " + quoteValue(t.OnEvent)
	case t.Schedule != "":
		return "schedule " + quoteValue(t.Schedule)
	}
	return "on_change " + quoteValue(t.OnChange)
}

// Starts says what a firing starts: "agent quick", "workflow implement".
func (t Trigger) Starts() string {
	if t.Workflow != "" {
		return "workflow " + t.Workflow
	}
	if t.Agent == "" {
		return "the default agent"
	}
	return "agent " + t.Agent
}

// KeepsAlive reports whether the trigger needs a running engine host to
// fire by itself (a schedule, a watcher): its workspace's host then stays
// up. An event trigger fires through a client, which starts a host.
func (t Trigger) KeepsAlive() bool { return t.Schedule != "" || t.OnChange != "" }

// TemplateFuncs are the functions trigger templates may call besides
// text/template's own: json writes a value as JSON (for a workflow's input,
// or to quote event data in a prompt).
func TemplateFuncs() template.FuncMap {
	return template.FuncMap{"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	}}
}

// cronParser reads standard five-field cron expressions and the
// descriptors (@hourly, @daily, @every 30m).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// eventNamePattern is what an event may be called (as the API accepts).
var eventNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`)

// EventNameRule says what an event may be called, for a refusal.
const EventNameRule = "an event name is letters, digits and _ . : - (at most 128), starting with a letter or digit"

// ValidEventName reports whether name is what an event may be called: the
// one rule for a trigger's on_event, the API's signals and the studio's.
func ValidEventName(name string) bool { return eventNamePattern.MatchString(name) }

// triggerFields are the keys of a [[triggers]] table.
var triggerFields = []string{"name", "on_event", "schedule", "on_change", "agent", "prompt", "workflow", "input"}

// triggerList reads an array of [[triggers]] tables. Every problem is
// reported; only a list without any is kept.
func (c *fileCtx) triggerList(r ref, v any) ([]Trigger, bool) {
	var elems []map[string]any
	switch x := v.(type) {
	case []map[string]any:
		elems = x
	case []any:
		for i, e := range x {
			t, ok := e.(map[string]any)
			if !ok {
				c.wrongType(r.index(i), "a table, written [["+r.key+"]]", e)
				return nil, false
			}
			elems = append(elems, t)
		}
	default:
		c.wrongType(r, "an array of tables, written [["+r.key+"]]", v)
		return nil, false
	}
	out := make([]Trigger, 0, len(elems))
	good := true
	seen := map[string]bool{}
	for i, t := range elems {
		tr, ok := c.trigger(r.index(i), t)
		if ok && seen[tr.Name] {
			c.bad(r.index(i).child("name"), "a second trigger named %s", quoteValue(tr.Name))
			ok = false
		}
		seen[tr.Name] = true
		good = good && ok
		out = append(out, tr)
	}
	return out, good
}

// trigger reads and checks one trigger table.
func (c *fileCtx) trigger(r ref, t map[string]any) (Trigger, bool) {
	tr := Trigger{File: c.file, Line: c.pos.lookup(r.segs...).Line}
	good := true
	strs := map[string]string{}
	for _, k := range c.sortedKeys(r.segs, t) {
		kr := r.child(k)
		if !slices.Contains(triggerFields, k) {
			c.unknown(kr, k, triggerFields)
			good = false
			continue
		}
		if !c.noSecret(kr, t[k]) {
			good = false
			continue
		}
		s, ok := nonEmpty(c, kr, t[k])
		if !ok {
			good = false
			continue
		}
		strs[k] = s.(string)
	}
	tr.Name, tr.OnEvent, tr.Schedule, tr.OnChange = strs["name"], strs["on_event"], strs["schedule"], strs["on_change"]
	tr.Agent, tr.Prompt, tr.Workflow, tr.Input = strs["agent"], strs["prompt"], strs["workflow"], strs["input"]
	if !good {
		return tr, false
	}
	need := func(format string, args ...any) {
		c.bad(r, format, args...)
		good = false
	}
	switch {
	case tr.Name == "":
		need(`needs name (letters, digits, '-' and '_')`)
	case !namePattern.MatchString(tr.Name):
		c.bad(r.child("name"), "trigger names are letters, digits, '-' and '_' (got %s)", quoteValue(tr.Name))
		good = false
	}
	conds := 0
	for _, k := range []string{"on_event", "schedule", "on_change"} {
		if strs[k] != "" {
			conds++
		}
	}
	if conds != 1 {
		need("needs exactly one of on_event, schedule and on_change (it has %d)", conds)
	}
	good = c.triggerCondition(r, &tr) && good
	good = c.triggerAction(r, &tr) && good
	return tr, good
}

// triggerCondition checks the condition's value: an event name, a
// schedule that parses, a glob.
func (c *fileCtx) triggerCondition(r ref, tr *Trigger) bool {
	switch {
	case tr.OnEvent != "" && !eventNamePattern.MatchString(tr.OnEvent):
		c.bad(r.child("on_event"), "%s (got %s)", EventNameRule, quoteValue(tr.OnEvent))
		return false
	case tr.Schedule != "":
		s, err := cronParser.Parse(tr.Schedule)
		if err != nil {
			c.bad(r.child("schedule"), `must be a cron expression ("0 3 * * *": minute hour day month weekday) or a descriptor ("@hourly", "@every 30m"): %v`, err)
			return false
		}
		tr.Cron = s
	case tr.OnChange != "":
		if !doublestar.ValidatePattern(tr.OnChange) || strings.HasPrefix(tr.OnChange, "/") {
			c.bad(r.child("on_change"), `must be a glob of workspace paths, as in "**/*.go" or "docs/*.md" (got %s)`, quoteValue(tr.OnChange))
			return false
		}
	}
	return true
}

// triggerAction checks what the trigger starts and compiles its template.
func (c *fileCtx) triggerAction(r ref, tr *Trigger) bool {
	parse := func(key, src string) (*template.Template, bool) {
		t, err := template.New(tr.Name + "." + key).Option("missingkey=error").Funcs(TemplateFuncs()).Parse(src)
		if err != nil {
			c.bad(r.child(key), "not a template: %v", err)
			return nil, false
		}
		return t, true
	}
	var ok bool
	switch {
	case tr.Workflow != "":
		if tr.Agent != "" || tr.Prompt != "" {
			c.bad(r, "starts either a workflow (workflow, input) or a session (agent, prompt), not both")
			return false
		}
		if !namePattern.MatchString(tr.Workflow) {
			c.bad(r.child("workflow"), "must name a workflow (.atelier/workflows/NAME.toml): letters, digits, '-' and '_' (got %s)", quoteValue(tr.Workflow))
			return false
		}
		if tr.Input == "" {
			tr.Input = "{}"
		}
		tr.InputTemplate, ok = parse("input", tr.Input)
	case tr.Input != "":
		c.bad(r.child("input"), "input goes with workflow (an agent gets a prompt)")
		return false
	case tr.Prompt == "":
		c.bad(r, "needs prompt (and optionally agent), or workflow (and input): what a firing starts")
		return false
	default:
		if tr.Agent != "" && !namePattern.MatchString(tr.Agent) {
			c.bad(r.child("agent"), "must be an agent name: letters, digits, '-' and '_' (got %s)", quoteValue(tr.Agent))
			return false
		}
		tr.PromptTemplate, ok = parse("prompt", tr.Prompt)
	}
	return ok
}

// workspaceTables reads the user's [workspaces."PATH"] tables: what the
// user keeps for one workspace in their own file. Only triggers live
// there for now. The value kept is the triggers by workspace path.
func (c *fileCtx) workspaceTables(r ref, v any) {
	t, ok := c.table(r, v, `a table of workspaces, written [workspaces."/path/to/workspace"]`)
	if !ok {
		return
	}
	out := map[string][]Trigger{}
	good := true
	for _, name := range c.sortedKeys(r.segs, t) {
		wr := r.child(name)
		p := name
		if rest, ok := strings.CutPrefix(p, "~/"); ok && c.home != "" {
			p = filepath.Join(c.home, rest)
		}
		if !filepath.IsAbs(p) {
			c.bad(wr, `must be a workspace's absolute path, or start with "~/" (got %s)`, quoteValue(name))
			good = false
			continue
		}
		wt, ok := c.table(wr, t[name], `a table, written [workspaces."`+name+`"]`)
		if !ok {
			good = false
			continue
		}
		for _, k := range c.sortedKeys(wr.segs, wt) {
			if k != "triggers" {
				c.unknown(wr.child(k), k, []string{"triggers"})
				good = false
				continue
			}
			trs, ok := c.triggerList(wr.child(k), wt[k])
			good = good && ok
			out[filepath.Clean(p)] = append(out[filepath.Clean(p)], trs...)
		}
	}
	if good {
		c.put(r, out)
	}
}

// workspaceTriggers picks the triggers of workspace ws from the user's
// file ("workspaces", by path) and adds the workspace file's own
// ("triggers"); it checks what needs both files: a name used twice, an
// agent that no file configures.
func workspaceTriggers(cfg *Config, merged layer, ws string) ([]Trigger, []Problem) {
	var out []Trigger
	if s, ok := merged["workspaces"]; ok && ws != "" {
		byPath := s.value.(map[string][]Trigger)
		for _, k := range mapKeys(byPath) {
			if sameDir(k, ws) {
				out = append(out, byPath[k]...)
			}
		}
	}
	if s, ok := merged["triggers"]; ok {
		out = append(out, s.value.([]Trigger)...)
	}
	var probs []Problem
	at := func(t Trigger, format string, args ...any) {
		probs = append(probs, Problem{File: t.File, Line: t.Line, Key: "triggers", Kind: KindValue, Msg: fmt.Sprintf(format, args...)})
	}
	first := map[string]Trigger{}
	for _, t := range out {
		if f, ok := first[t.Name]; ok {
			at(t, "a second trigger named %s (the first is at %s:%d)", quoteValue(t.Name), f.File, f.Line)
			continue
		}
		first[t.Name] = t
		if t.Agent != "" {
			if _, ok := cfg.agents[t.Agent]; !ok && !slices.Contains(harnessNames(), t.Agent) {
				at(t, "trigger %s: no agent named %s: the configured agents are %s", quoteValue(t.Name), quoteValue(t.Agent), strings.Join(mapKeys(cfg.agents), ", "))
			}
		}
	}
	return out, probs
}

// sameDir reports whether two absolute paths name one folder: the same
// path, or the same once symbolic links are resolved.
func sameDir(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
