package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Entry is one effective setting, for `atelier config` and the settings
// view: its dotted key, its value written as TOML (secrets masked), and the
// file and line that set it ("" and 0 for a default).
type Entry struct {
	Key   string
	Value string
	File  string
	Line  int
}

// Mask replaces values that may be secrets in Effective.
const Mask = "********"

// Effective lists every setting in force, defaults included, grouped as the
// files are (default_agent, agents by name, then the studio's sections).
func (c *Config) Effective() []Entry {
	var out []Entry
	add := func(key, value string) {
		if masked(key) {
			value = Mask
		}
		file, line := c.Source(key)
		out = append(out, Entry{Key: key, Value: value, File: file, Line: line})
	}
	add("default_agent", quote(c.defaultAgent))
	for _, a := range c.Agents() {
		p := "agents." + a.Name + "."
		add(p+"harness", quote(string(a.Harness)))
		for _, f := range []struct{ key, val string }{
			{"model", a.Model}, {"base_url", a.BaseURL}, {"api_key_env", a.APIKeyEnv},
			{"instructions", a.Instructions},
		} {
			if f.val != "" {
				add(p+f.key, quote(f.val))
			}
		}
		add(p+"tools", quoteList(a.Tools))
		add(p+"approval", quote(string(a.Approval)))
		if len(a.Rules) > 0 {
			add(p+"rules", formatRules(a.Rules))
		}
		add(p+"execution", quote(string(a.Execution)))
		if a.Image != "" {
			add(p+"image", quote(a.Image))
		}
		if a.Isolation != "" {
			add(p+"isolation", quote(a.Isolation))
		}
		if len(a.Command) > 0 {
			add(p+"command", quoteList(a.Command))
		}
		for _, name := range mapKeys(a.Env) {
			add(p+"env."+name, quote(a.Env[name]))
		}
		if a.MaxTurns > 0 {
			add(p+"max_turns", strconv.Itoa(a.MaxTurns))
		}
		if a.MaxTokens > 0 {
			add(p+"max_tokens", strconv.Itoa(a.MaxTokens))
		}
	}
	if c.UI.ThemeFile != "" {
		add("ui.theme", quote(c.UI.ThemeFile))
	} else {
		add("ui.theme", quote(c.UI.Theme))
	}
	add("ui.notifications", quote(c.UI.Notifications))
	for _, action := range mapKeys(c.Keys) {
		add("keys."+action, quote(c.Keys[action]))
	}
	add("history.max_file_size", tomlSize(c.History.MaxFileSize))
	add("history.secret_patterns", quoteList(c.History.SecretPatterns))
	add("engine.workers", strconv.Itoa(c.Engine.Workers))
	add("engine.stuck_after", quote(formatDuration(c.Engine.StuckAfter)))
	add("engine.idle_exit", quote(formatDuration(c.Engine.IdleExit)))
	if c.Instances.Root != "" {
		add("instances.root", quote(c.Instances.Root))
	}
	if len(c.Instances.Include) > 0 {
		add("instances.include", quoteList(c.Instances.Include))
	}
	if c.Instances.Omit != nil {
		add("instances.omit", quoteList(c.Instances.Omit))
	}
	if c.Instances.Setup != "" {
		add("instances.setup", quote(c.Instances.Setup))
	}
	add("instances.warn_size", tomlSize(c.Instances.WarnSize))
	add("docker.network", quote(c.Docker.Network))
	if c.Docker.Memory > 0 {
		add("docker.memory", tomlSize(c.Docker.Memory))
	}
	if c.Docker.CPUs > 0 {
		add("docker.cpus", strconv.FormatFloat(c.Docker.CPUs, 'g', -1, 64))
	}
	if len(c.Notify.Command) > 0 {
		add("notify.command", quoteList(c.Notify.Command))
	}
	switch c.Notify.Desktop {
	case "on":
		add("notify.desktop", "true")
	case "off":
		add("notify.desktop", "false")
	default:
		add("notify.desktop", quote(c.Notify.Desktop))
	}
	add("notify.events", quoteList(c.Notify.Events))
	add("notify.timeout", quote(formatDuration(c.Notify.Timeout)))
	for _, t := range c.Triggers {
		out = append(out, Entry{Key: "triggers." + t.Name, Value: triggerValue(t), File: t.File, Line: t.Line})
	}
	return out
}

// triggerValue writes a trigger's condition and what it starts as an
// inline table (its template is left out: it may be long).
func triggerValue(t Trigger) string {
	cond := "on_change = " + quote(t.OnChange)
	switch {
	case t.OnEvent != "":
		cond = "on_event = " + quote(t.OnEvent)
	case t.Schedule != "":
		cond = "schedule = " + quote(t.Schedule)
	}
	what := "agent = " + quote(t.Agent)
	switch {
	case t.Workflow != "":
		what = "workflow = " + quote(t.Workflow)
	case t.Agent == "":
		what = "agent = (the default)"
	}
	return "{" + cond + ", " + what + "}"
}

// masked reports whether the value of key may be a secret: keys named like
// one (…_key, …_token, …secret, …password), and agent environment
// variables named like one.
func masked(key string) bool {
	last := strings.ToLower(key[strings.LastIndex(key, ".")+1:])
	for _, suffix := range []string{"_key", "_token", "secret", "password"} {
		if strings.HasSuffix(last, suffix) {
			return true
		}
	}
	if last == "key" || last == "token" {
		return true
	}
	if rest, ok := strings.CutPrefix(key, "agents."); ok {
		if _, field, ok := strings.Cut(rest, "."); ok {
			if name, ok := strings.CutPrefix(field, "env."); ok {
				return secretName(name)
			}
		}
	}
	return false
}

// tomlSize writes a size as a string with its unit when it has an exact
// one ("10MiB"), else as an integer of bytes.
func tomlSize(n int64) string {
	s := formatSize(n)
	if s == strconv.FormatInt(n, 10) {
		return s
	}
	return quote(s)
}

func quote(s string) string { return strconv.Quote(s) }

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func formatRules(rules []Rule) string {
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("{tool = %s, pattern = %s, action = %s}",
			quote(r.Tool), quote(r.Pattern), quote(string(r.Action)))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// formatDuration writes a duration as a user would: "5m", "1h30m", "90s".
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
