package harness

import (
	"regexp"
	"slices"
	"strings"
)

// baseEnv are the variables every agent process keeps from the environment
// it starts in: what a program needs to run as the user (where things are,
// the locale, the terminal) and to reach the network (proxies,
// certificates). LC_* are kept too.
var baseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "COLORTERM",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"}

// basePrefixes are the prefixes of the kept variables.
var basePrefixes = []string{"LC_"}

// BaseEnv reports whether every agent process keeps the variable name (see
// baseEnv); the rest of the operator's environment reaches an agent only
// when its adapter declares it (EnvSpec).
func BaseEnv(name string) bool {
	return slices.Contains(baseEnv, name) || hasAnyPrefix(name, basePrefixes)
}

// EnvSpec declares the environment variables an agent CLI reads for its own
// configuration and login (Claude Code's ANTHROPIC_*, Codex's OPENAI_*).
// Those pass from the environment Atelier was started in to that CLI, as
// the CLI's own documentation tells its users to export them; another
// program's variables (another agent's keys) do not.
type EnvSpec struct {
	// Prefixes declare every variable whose name starts with one of them.
	Prefixes []string
	// Names declare single variables.
	Names []string
	// Credentials are the declared variables that hold a key or token for
	// the CLI's own provider. They are not inherited when Atelier points
	// the CLI at another server (a configured base URL): that server gets
	// the key the configuration names, never the official one unasked.
	Credentials []string
}

// Declares reports whether the spec declares the variable name.
func (s EnvSpec) Declares(name string) bool {
	return slices.Contains(s.Names, name) || hasAnyPrefix(name, s.Prefixes)
}

// With returns the spec declaring names too: the variables a CLI's own
// configuration file names (a Codex provider's env_key), which its user
// declared for that CLI as surely as its documentation declares the rest.
func (s EnvSpec) With(names ...string) EnvSpec {
	s.Names = slices.Concat(s.Names, names)
	return s
}

// Pick returns the entries of environ (KEY=VALUE, as os.Environ gives
// them) that the spec declares, in order.
func (s EnvSpec) Pick(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if name, _, ok := strings.Cut(kv, "="); ok && s.Declares(name) {
			out = append(out, kv)
		}
	}
	return out
}

// WithoutCredentials returns env less the spec's Credentials.
func (s EnvSpec) WithoutCredentials(env []string) []string {
	var out []string
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !slices.Contains(s.Credentials, name) {
			out = append(out, kv)
		}
	}
	return out
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// EnvName reports whether name can be a variable's name, which is what may
// go into a shell script the adapters write (Isolate, claude's scrub).
func EnvName(name string) bool { return envName.MatchString(name) }

// Lookup returns the value of name in env (KEY=VALUE entries; the last one
// wins, as in MergeEnv and exec), "" when it has none: where a CLI started
// with env will look for its configuration.
func Lookup(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// Isolate returns argv wrapped in a small sh script that, where the process
// runs (on the host or in a session's container, whose environment is the
// image's), unsets every variable but the base ones, those the spec
// declares and those named in env, then runs argv. The host already starts
// agents from a clean environment; the script makes a container's the
// same, so every CLI adapter gets one behaviour wherever it runs. Values
// travel in the environment, never on a command line.
func (s EnvSpec) Isolate(argv, env []string) []string {
	var pats []string
	add := func(name, suffix string) {
		if envName.MatchString(name) && !slices.Contains(pats, name+suffix) {
			pats = append(pats, name+suffix)
		}
	}
	for _, n := range baseEnv {
		add(n, "")
	}
	for _, n := range s.Names {
		add(n, "")
	}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		add(name, "")
	}
	for _, p := range append(slices.Clone(basePrefixes), s.Prefixes...) {
		add(p, "*")
	}
	script := `for v in $(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p'); do case "$v" in ` +
		strings.Join(pats, "|") + `) ;; *) unset "$v" 2>/dev/null ;; esac; done; exec "$@"`
	name := "agent"
	if len(argv) > 0 {
		name = argv[0]
	}
	return append([]string{"sh", "-c", script, name}, argv...)
}

// MergeEnv merges lists of KEY=VALUE entries: a later entry replaces an
// earlier one of the same name (in the earlier one's place), so a list
// given later wins, as explicit settings win over inherited variables.
func MergeEnv(lists ...[]string) []string {
	var out []string
	at := map[string]int{}
	for _, l := range lists {
		for _, kv := range l {
			name, _, _ := strings.Cut(kv, "=")
			if i, ok := at[name]; ok {
				out[i] = kv
				continue
			}
			at[name] = len(out)
			out = append(out, kv)
		}
	}
	return out
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
