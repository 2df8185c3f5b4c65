package config

import (
	"fmt"
	"math"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ref is a key being checked: its dotted name for messages and its path for
// positions.
type ref struct {
	key  string
	segs []string
}

func rootRef(name string) ref { return ref{key: name, segs: []string{name}} }

func (r ref) child(name string) ref {
	return ref{key: r.key + "." + name, segs: append(slices.Clone(r.segs), name)}
}

func (r ref) index(i int) ref {
	return ref{key: fmt.Sprintf("%s[%d]", r.key, i), segs: append(slices.Clone(r.segs), strconv.Itoa(i))}
}

// checker validates one decoded TOML value and returns its typed form; it
// reports what is wrong to c and returns false.
type checker func(c *fileCtx, r ref, v any) (any, bool)

// typeName names a decoded value's TOML type for messages.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case time.Time:
		return "datetime"
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// quoteValue shows a user's value in a message, cut short when long.
func quoteValue(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return strconv.Quote(s)
}

func (c *fileCtx) wrongType(r ref, want string, v any) {
	c.at(KindType, r.key, r.segs, "must be %s (got %s)", want, typeName(v))
}

func (c *fileCtx) bad(r ref, format string, args ...any) {
	c.at(KindValue, r.key, r.segs, format, args...)
}

func (c *fileCtx) str(r ref, v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		c.wrongType(r, "a string", v)
	}
	return s, ok
}

// anyString accepts any string, empty included.
func anyString(c *fileCtx, r ref, v any) (any, bool) {
	s, ok := c.str(r, v)
	return s, ok
}

// nonEmpty accepts a string with something other than blanks in it.
func nonEmpty(c *fileCtx, r ref, v any) (any, bool) {
	s, ok := c.str(r, v)
	if ok && strings.TrimSpace(s) == "" {
		c.bad(r, "must not be empty")
		return nil, false
	}
	return s, ok
}

// enum accepts one of values.
func enum(values ...string) checker {
	return func(c *fileCtx, r ref, v any) (any, bool) {
		s, ok := c.str(r, v)
		if !ok {
			return nil, false
		}
		if !slices.Contains(values, s) {
			c.bad(r, "must be one of %s (got %s)", strings.Join(values, ", "), quoteValue(s))
			return nil, false
		}
		return s, true
	}
}

var (
	namePattern    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	envRefPattern  = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)
)

// agentName accepts a name usable as `--agent NAME`.
func agentName(c *fileCtx, r ref, v any) (any, bool) {
	s, ok := c.str(r, v)
	if ok && !namePattern.MatchString(s) {
		c.bad(r, "must be an agent name: letters, digits, '-' and '_' (got %s)", quoteValue(s))
		return nil, false
	}
	return s, ok
}

// envName accepts the name of an environment variable.
func envName(c *fileCtx, r ref, v any) (any, bool) {
	s, ok := c.str(r, v)
	if ok && !envNamePattern.MatchString(s) {
		c.bad(r, "must name an environment variable: letters, digits and '_' (got %s)", quoteValue(s))
		return nil, false
	}
	return s, ok
}

// intAtLeast accepts an integer in [lo, hi].
func intAtLeast(lo, hi int64) checker {
	return func(c *fileCtx, r ref, v any) (any, bool) {
		n, ok := v.(int64)
		if !ok {
			c.wrongType(r, "an integer", v)
			return nil, false
		}
		if n < lo || n > hi {
			c.bad(r, "must be between %d and %d (got %d)", lo, hi, n)
			return nil, false
		}
		return int(n), true
	}
}

// httpURL accepts an absolute http or https URL.
func httpURL(c *fileCtx, r ref, v any) (any, bool) {
	s, ok := c.str(r, v)
	if !ok {
		return nil, false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.bad(r, "must be an http:// or https:// URL (got %s)", quoteValue(s))
		return nil, false
	}
	return s, true
}

// duration accepts a Go duration string greater than zero: "90s", "5m".
func duration(c *fileCtx, r ref, v any) (any, bool) {
	s, ok := v.(string)
	if !ok {
		c.wrongType(r, `a duration string like "5m"`, v)
		return nil, false
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		c.bad(r, `must be a positive duration like "30s", "5m" or "1h30m" (got %s)`, quoteValue(s))
		return nil, false
	}
	return d, true
}

// durationOrZero accepts a Go duration string of zero or more: "0s" turns
// the setting off ("10m", "0s").
func durationOrZero(c *fileCtx, r ref, v any) (any, bool) {
	s, ok := v.(string)
	if !ok {
		c.wrongType(r, `a duration string like "10m"`, v)
		return nil, false
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		c.bad(r, `must be a duration like "10m", or "0s" for never (got %s)`, quoteValue(s))
		return nil, false
	}
	return d, true
}

// cpus accepts a positive number of CPUs, integer or fractional.
func cpus(c *fileCtx, r ref, v any) (any, bool) {
	var f float64
	switch n := v.(type) {
	case int64:
		f = float64(n)
	case float64:
		f = n
	default:
		c.wrongType(r, "a number", v)
		return nil, false
	}
	if !(f > 0) || math.IsInf(f, 0) || f > 1024 {
		c.bad(r, "must be a number of CPUs above 0 (got %v)", f)
		return nil, false
	}
	return f, true
}

// byteSize accepts a size in bytes: an integer, or a string with a unit
// ("10MiB", "512m", "1.5GB"). Names with i and bare letters are binary (as
// Docker's "512m" is), names with B alone are decimal.
func byteSize(c *fileCtx, r ref, v any) (any, bool) {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case string:
		var err error
		if n, err = parseSize(x); err != nil {
			c.bad(r, `must be a size like 1048576, "512KiB", "10MiB" or "1GB" (got %s)`, quoteValue(x))
			return nil, false
		}
	default:
		c.wrongType(r, `a size (an integer of bytes, or a string like "10MiB")`, v)
		return nil, false
	}
	if n <= 0 {
		c.bad(r, "must be more than 0 bytes (got %d)", n)
		return nil, false
	}
	return n, true
}

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
	"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
	"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
}

// parseSize reads "10MiB", "1.5 GB", "512m" or "4096" as bytes.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	end := 0
	for end < len(t) && (t[end] >= '0' && t[end] <= '9' || t[end] == '.') {
		end++
	}
	num, unit := t[:end], strings.ToLower(strings.TrimSpace(t[end:]))
	mult, ok := sizeUnits[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("bad size %q", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(f * mult), nil
}

// formatSize writes n the way a user would: "10MiB" when exact, else bytes.
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}

// folder accepts a folder's path, made absolute as program makes its
// program: "~/" is under the home folder, a relative path is relative to
// the config file's folder.
func folder(c *fileCtx, r ref, v any) (any, bool) {
	s, ok := c.str(r, v)
	if !ok {
		return nil, false
	}
	if strings.TrimSpace(s) == "" {
		c.bad(r, "must be a folder's path")
		return nil, false
	}
	switch rest, home := strings.CutPrefix(s, "~/"); {
	case home && c.home != "":
		return filepath.Join(c.home, rest), true
	case home: // no HOME: left as written, as program leaves it
		return s, true
	case !filepath.IsAbs(s):
		return filepath.Join(c.dir, s), true
	}
	return filepath.Clean(s), true
}

// patternList accepts non-empty strings: .gitignore patterns or folder
// names.
func patternList(c *fileCtx, r ref, v any) (any, bool) {
	return c.strList(r, v, func(er ref, s string) bool {
		if strings.TrimSpace(s) == "" {
			c.bad(er, "must not be empty")
			return false
		}
		return true
	})
}

// strings reads an array of strings, each checked by each.
func (c *fileCtx) strList(r ref, v any, each func(ref, string) bool) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		c.wrongType(r, "an array of strings", v)
		return nil, false
	}
	out := make([]string, 0, len(arr))
	good := true
	for i, e := range arr {
		er := r.index(i)
		s, ok := e.(string)
		if !ok {
			c.wrongType(er, "a string", e)
			good = false
			continue
		}
		if each != nil && !each(er, s) {
			good = false
			continue
		}
		out = append(out, s)
	}
	return out, good
}

// toolList accepts a subset of the engine's tools, each at most once.
func toolList(c *fileCtx, r ref, v any) (any, bool) {
	seen := map[string]bool{}
	out, ok := c.strList(r, v, func(er ref, s string) bool {
		if !slices.Contains(AllTools(), s) {
			c.bad(er, "unknown tool %s: the tools are %s", quoteValue(s), strings.Join(AllTools(), ", "))
			return false
		}
		if seen[s] {
			c.bad(er, "tool %s is listed twice", quoteValue(s))
			return false
		}
		seen[s] = true
		return true
	})
	return out, ok
}

// argv accepts a command line as an array of strings, the program first.
func argv(c *fileCtx, r ref, v any) (any, bool) {
	out, ok := c.strList(r, v, nil)
	if ok && (len(out) == 0 || strings.TrimSpace(out[0]) == "") {
		c.bad(r, `must name a program first, as in ["gemini", "--acp"]`)
		return nil, false
	}
	return out, ok
}

// globList accepts file name patterns in path.Match syntax.
func globList(c *fileCtx, r ref, v any) (any, bool) {
	out, ok := c.strList(r, v, func(er ref, s string) bool {
		if _, err := path.Match(s, ""); err != nil || s == "" {
			c.bad(er, "must be a glob pattern like \"*.pem\" or \"secrets/*\" (got %s)", quoteValue(s))
			return false
		}
		return true
	})
	return out, ok
}

// program accepts a command line as argv does, and makes its program a
// path that does not depend on where it runs: "~/bin/hook" is under the
// home folder, "./hook" or "bin/hook" is relative to the config file's
// folder, and a bare name ("notify-hook") is looked up on PATH when run.
func program(c *fileCtx, r ref, v any) (any, bool) {
	val, ok := argv(c, r, v)
	if !ok {
		return nil, false
	}
	out := slices.Clone(val.([]string))
	p := out[0]
	switch rest, home := strings.CutPrefix(p, "~/"); {
	case home && c.home != "":
		out[0] = filepath.Join(c.home, rest)
	case home: // no HOME: left as written, and running it says so
	case !filepath.IsAbs(p) && strings.ContainsRune(p, '/'):
		out[0] = filepath.Join(c.dir, p)
	}
	return out, true
}

// desktopMode accepts true, false or "auto" (also "on" and "off"), stored
// as "on", "off" or "auto".
func desktopMode(c *fileCtx, r ref, v any) (any, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return "on", true
		}
		return "off", true
	case string:
		if x == "auto" || x == "on" || x == "off" {
			return x, true
		}
		c.bad(r, `must be true, false or "auto" (got %s)`, quoteValue(x))
		return nil, false
	}
	c.wrongType(r, `true, false or "auto"`, v)
	return nil, false
}

// notifyEvents accepts a subset of NotifyEvents, each at most once, and
// keeps them in NotifyEvents' order; [] notifies nothing.
func notifyEvents(c *fileCtx, r ref, v any) (any, bool) {
	seen := map[string]bool{}
	_, ok := c.strList(r, v, func(er ref, s string) bool {
		if !slices.Contains(NotifyEvents(), s) {
			c.bad(er, "unknown event %s: the events are %s", quoteValue(s), strings.Join(NotifyEvents(), ", "))
			return false
		}
		if seen[s] {
			c.bad(er, "event %s is listed twice", quoteValue(s))
			return false
		}
		seen[s] = true
		return true
	})
	if !ok {
		return nil, false
	}
	out := []string{}
	for _, e := range NotifyEvents() {
		if seen[e] {
			out = append(out, e)
		}
	}
	return out, true
}
