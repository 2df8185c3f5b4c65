package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// setting is one validated value of one file, with where it was written.
type setting struct {
	value any
	file  string
	at    pos
}

// layer is the settings of one file (or of the merge of several), by flat
// dotted key: "agents.local.model", "agents.local.env.GOFLAGS", "keys.quit".
// An agent's table itself is present as "agents.NAME" with a nil value, so
// an agent written with no keys still exists.
type layer map[string]setting

// fileCtx checks one file's decoded TOML against the schema.
type fileCtx struct {
	problems
	dir  string // the file's directory: relative paths are relative to it
	home string // for "~/" in paths; empty when unknown
	set  layer
}

func (c *fileCtx) put(r ref, v any) {
	c.set[r.key] = setting{value: v, file: c.file, at: c.pos.lookup(r.segs...)}
}

// The schema: each section's keys and how their values are checked. The
// agents table, its env table, [keys] and rules have their own walkers.
var (
	agentFields = map[string]checker{
		"harness":      enum(harnessNames()...),
		"model":        nonEmpty,
		"base_url":     httpURL,
		"api_key_env":  envName,
		"instructions": anyString,
		"tools":        toolList,
		"approval":     enum(string(ApprovalAsk), string(ApprovalAuto), string(ApprovalReadOnly)),
		"rules":        rules,
		"execution":    enum(string(ExecutionLocal), string(ExecutionDocker)),
		"image":        nonEmpty,
		"command":      argv,
		"max_turns":    intAtLeast(1, 1_000_000),
		"max_tokens":   intAtLeast(1, 1<<40),
		"isolation":    enum(IsolationInPlace, IsolationWorktree, IsolationCopy),
		"env":          nil, // envTable
	}
	sectionFields = map[string]map[string]checker{
		"ui": {
			"theme":         theme,
			"notifications": enum("auto", "bell", "osc", "none"),
		},
		"history": {
			"max_file_size":   byteSize,
			"secret_patterns": globList,
		},
		"engine": {
			"workers":     intAtLeast(1, 256),
			"stuck_after": duration,
			"idle_exit":   durationOrZero,
		},
		"instances": {
			"root":      folder,
			"include":   patternList,
			"omit":      patternList,
			"setup":     nonEmpty,
			"warn_size": byteSize,
		},
		"docker": {
			"network": nonEmpty,
			"memory":  byteSize,
			"cpus":    cpus,
		},
		"notify": {
			"command": program,
			"desktop": desktopMode,
			"events":  notifyEvents,
			"timeout": duration,
		},
	}
	ruleFields = []string{"tool", "pattern", "action"}
)

func harnessNames() []string {
	var out []string
	for _, h := range Harnesses() {
		out = append(out, string(h))
	}
	return out
}

// themeNames are the built-in themes; any other ui.theme is a file path.
var themeNames = []string{"auto", "dark", "light", "high-contrast"}

// theme accepts a built-in theme name or the path of a theme file, relative
// to the config file's directory or starting with "~/"; the file must exist.
// A path is stored absolute.
func theme(c *fileCtx, r ref, v any) (any, bool) {
	s, ok := nonEmpty(c, r, v)
	if !ok {
		return nil, false
	}
	name := s.(string)
	if slices.Contains(themeNames, name) {
		return name, true
	}
	p := name
	if rest, ok := strings.CutPrefix(p, "~/"); ok && c.home != "" {
		p = filepath.Join(c.home, rest)
	} else if !filepath.IsAbs(p) {
		p = filepath.Join(c.dir, p)
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		c.bad(r, "must be one of %s or the path of a theme file (no file at %s)", strings.Join(themeNames, ", "), p)
		return nil, false
	}
	return p, true
}

// root walks the top level of a file.
func (c *fileCtx) root(doc map[string]any) {
	for _, k := range c.sortedKeys(nil, doc) {
		v := doc[k]
		r := rootRef(k)
		switch k {
		case "default_agent":
			if c.noSecret(r, v) {
				if name, ok := agentName(c, r, v); ok {
					c.put(r, name)
				}
			}
		case "agents":
			c.agents(r, v)
		case "keys":
			c.keys(r, v)
		case "triggers":
			if list, ok := c.triggerList(r, v); ok {
				c.put(r, list)
			}
		case "workspaces":
			c.workspaceTables(r, v)
		default:
			fields, ok := sectionFields[k]
			if !ok {
				c.unknown(r, k, append([]string{"default_agent", "agents", "keys", "triggers", "workspaces"}, mapKeys(sectionFields)...))
				continue
			}
			c.section(r, v, fields)
		}
	}
}

func (c *fileCtx) table(r ref, v any, want string) (map[string]any, bool) {
	t, ok := v.(map[string]any)
	if !ok {
		c.wrongType(r, want, v)
	}
	return t, ok
}

func (c *fileCtx) section(r ref, v any, fields map[string]checker) {
	t, ok := c.table(r, v, "a table (["+r.key+"])")
	if !ok {
		return
	}
	for _, k := range c.sortedKeys(r.segs, t) {
		c.field(r.child(k), k, t[k], fields)
	}
}

// field checks one key of a table against the table's fields.
func (c *fileCtx) field(r ref, name string, v any, fields map[string]checker) {
	chk, ok := fields[name]
	if !ok || chk == nil {
		c.unknown(r, name, mapKeys(fields))
		return
	}
	if !c.noSecret(r, v) {
		return
	}
	if val, ok := chk(c, r, v); ok {
		c.put(r, val)
	}
}

// noSecret refuses a value that looks like a credential.
func (c *fileCtx) noSecret(r ref, v any) bool {
	if secretIn(v) {
		c.at(KindSecret, r.key, r.segs, "the value looks like a secret; %s", secretAdvice)
		return false
	}
	return true
}

// unknown reports a key that is not in the schema, suggesting the closest
// known one; a key named like a secret gets the advice to use api_key_env.
func (c *fileCtx) unknown(r ref, name string, known []string) {
	if secretName(name) {
		c.at(KindSecret, r.key, r.segs, "%s", secretAdvice)
		return
	}
	msg := "unknown key"
	if s := closest(name, known); s != "" {
		msg += " (did you mean " + quoteValue(s) + "?)"
	}
	c.at(KindUnknown, r.key, r.segs, "%s", msg)
}

func (c *fileCtx) agents(r ref, v any) {
	t, ok := c.table(r, v, "a table of agents, written [agents.NAME]")
	if !ok {
		return
	}
	for _, name := range c.sortedKeys(r.segs, t) {
		ar := r.child(name)
		if !namePattern.MatchString(name) {
			c.bad(ar, "agent names are letters, digits, '-' and '_' (got %s)", quoteValue(name))
			continue
		}
		at, ok := c.table(ar, t[name], "a table, written [agents."+name+"]")
		if !ok {
			continue
		}
		c.put(ar, nil)
		for _, k := range c.sortedKeys(ar.segs, at) {
			if k == "env" {
				c.envTable(ar.child(k), at[k])
				continue
			}
			c.field(ar.child(k), k, at[k], agentFields)
		}
	}
}

// envTable reads an agent's extra environment, one setting per variable. A
// variable named like a secret may only be passed from our environment,
// written "${NAME}".
func (c *fileCtx) envTable(r ref, v any) {
	t, ok := c.table(r, v, `a table of NAME = "value"`)
	if !ok {
		return
	}
	for _, name := range c.sortedKeys(r.segs, t) {
		er := r.child(name)
		if !envNamePattern.MatchString(name) {
			c.bad(er, "must name an environment variable: letters, digits and '_'")
			continue
		}
		s, ok := c.str(er, t[name])
		if !ok || !c.noSecret(er, s) {
			continue
		}
		if secretName(name) && !envRefPattern.MatchString(s) {
			c.at(KindSecret, er.key, er.segs,
				"config files never hold secrets: write \"${%s}\" to pass the variable from your environment", name)
			continue
		}
		c.put(er, s)
	}
}

// keys reads [keys]: action name → key, one setting per action.
func (c *fileCtx) keys(r ref, v any) {
	t, ok := c.table(r, v, `a table of action = "key"`)
	if !ok {
		return
	}
	for _, action := range c.sortedKeys(r.segs, t) {
		kr := r.child(action)
		if !c.noSecret(kr, t[action]) {
			continue
		}
		if s, ok := nonEmpty(c, kr, t[action]); ok {
			c.put(kr, s)
		}
	}
}

// rules reads an agent's approval rules: an array of tables.
func rules(c *fileCtx, r ref, v any) (any, bool) {
	var elems []map[string]any
	switch x := v.(type) {
	case []map[string]any:
		elems = x
	case []any:
		for i, e := range x {
			t, ok := e.(map[string]any)
			if !ok {
				c.wrongType(r.index(i), `a table {tool = "...", pattern = "...", action = "..."}`, e)
				return nil, false
			}
			elems = append(elems, t)
		}
	default:
		c.wrongType(r, "an array of tables, written [["+r.key+"]]", v)
		return nil, false
	}
	out := make([]Rule, 0, len(elems))
	good := true
	for i, t := range elems {
		rule, ok := c.rule(r.index(i), t)
		good = good && ok
		out = append(out, rule)
	}
	return out, good
}

func (c *fileCtx) rule(r ref, t map[string]any) (Rule, bool) {
	rule := Rule{Pattern: "*"}
	good := true
	for _, k := range c.sortedKeys(r.segs, t) {
		kr := r.child(k)
		var val any
		var ok bool
		switch k {
		case "tool":
			val, ok = enum(append([]string{"*"}, AllTools()...)...)(c, kr, t[k])
			if ok {
				rule.Tool = val.(string)
			}
		case "pattern":
			val, ok = nonEmpty(c, kr, t[k])
			if ok {
				rule.Pattern = val.(string)
			}
		case "action":
			val, ok = enum(string(ActionAllow), string(ActionAsk), string(ActionDeny))(c, kr, t[k])
			if ok {
				rule.Action = Action(val.(string))
			}
		default:
			c.unknown(kr, k, ruleFields)
		}
		good = good && ok
	}
	if _, ok := t["tool"]; !ok {
		c.bad(r, `needs tool (a tool name or "*")`)
		good = false
	}
	if _, ok := t["action"]; !ok {
		c.bad(r, "needs action (allow, ask or deny)")
		good = false
	}
	return rule, good
}

// sortedKeys orders a table's keys as they are written in the file, so
// problems come out in reading order.
func (c *fileCtx) sortedKeys(parent []string, t map[string]any) []string {
	keys := mapKeys(t)
	slices.SortStableFunc(keys, func(a, b string) int {
		pa := c.pos.lookup(append(slices.Clone(parent), a)...)
		pb := c.pos.lookup(append(slices.Clone(parent), b)...)
		if pa.Line != pb.Line {
			return pa.Line - pb.Line
		}
		return pa.Col - pb.Col
	})
	return keys
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// closest returns the known name nearest to name when it is a likely typo.
func closest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
