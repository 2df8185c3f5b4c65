package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/acp"
	"github.com/atelier-studio/atelier/harness/anthropic"
	"github.com/atelier-studio/atelier/harness/claude"
	"github.com/atelier-studio/atelier/harness/codex"
	"github.com/atelier-studio/atelier/harness/openai"
	"github.com/atelier-studio/atelier/internal/redact"
)

// agents resolves agent names for the engine from the configuration, plus
// the agents found without configuration (agent CLIs on PATH, keys in the
// usual variables, a local Ollama). Harnesses are built once per agent and
// shared by its sessions, since agent CLI adapters keep a process per
// session across turns; an agent resolved with a client's variables that
// differ from the host's is built once per set of them.
type agents struct {
	// cfg is the configuration the agents are resolved from; a host
	// replaces it when its files change (setConfig): read it with
	// config().
	cfgMu  sync.RWMutex
	cfg    *config.Config
	getenv func(string) string
	// environ is the environment agent CLIs inherit from; nil means
	// os.Environ.
	environ func() []string
	demo    *harness.Demo
	// red learns the secrets of the variables clients hand over (the
	// engine's redactor); nil redacts nothing.
	red *redact.Redactor

	mu    sync.Mutex
	built map[string]harness.Harness
}

func newAgents(cfg *config.Config, getenv func(string) string) *agents {
	return &agents{cfg: cfg, getenv: getenv, demo: harness.NewDemo(), built: map[string]harness.Harness{}}
}

// agentFor returns the configured agent called name, or the detected agent
// of that harness name with its defaults.
func (a *agents) agentFor(name string) (config.Agent, bool) {
	if ag, ok := a.config().Agent(name); ok {
		return ag, true
	}
	for _, h := range config.Harnesses() {
		if string(h) == name {
			return config.Agent{Name: name, Harness: h, Approval: config.ApprovalAsk, Execution: config.ExecutionLocal}, true
		}
	}
	return config.Agent{}, false
}

// Resolve implements core.Resolver.
func (a *agents) Resolve(name string) (harness.Harness, core.AgentSettings, error) {
	return a.ResolveEnv(name, nil)
}

// ResolveEnv implements core.EnvResolver: the agent as its client's
// environment makes it. Of env, only the variables the agent declares
// (declared) count; those equal to the host's own change nothing, so the
// usual case shares the one harness per agent. The values are redacted
// from then on like the host's own secrets.
func (a *agents) ResolveEnv(name string, env map[string]string) (harness.Harness, core.AgentSettings, error) {
	ag, ok := a.agentFor(name)
	if !ok {
		return nil, core.AgentSettings{}, fmt.Errorf("agent %q is neither configured nor a harness name: %w", name, core.ErrUnknownAgent)
	}
	own := map[string]string{}
	for _, kv := range a.declared(ag, envList(env)) {
		k, v, _ := strings.Cut(kv, "=")
		if a.getenv(k) != v {
			own[k] = v
		}
	}
	cfg := a.config().WithEnv(own)
	agEnv, err := cfg.AgentEnv(ag)
	if err != nil {
		return nil, core.AgentSettings{}, fmt.Errorf("agent %s: %w: %w", name, core.ErrAgentEnv, err)
	}
	set := core.AgentSettings{Instructions: ag.Instructions, Tools: ag.Tools, Approval: string(ag.Approval),
		Model: ag.Model, MaxSteps: ag.MaxTurns, Env: agEnv, Execution: string(ag.Execution), Image: ag.Image,
		Isolation: ag.Isolation,
		Rules: func(tool, subject string) (string, bool) {
			act, ok := ag.Decide(tool, subject)
			return string(act), ok
		}}
	ownList := envList(own)
	cacheKey := name
	if len(own) > 0 {
		cacheKey += "\x00" + strings.Join(ownList, "\x00")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if h, ok := a.built[cacheKey]; ok {
		return h, set, nil // built for these values: their secrets are known
	}
	if len(own) > 0 {
		// The agent's env first: a value it also holds is shown under the
		// name the agent sees.
		a.red.Add(redact.Environ(agEnv)...)
		a.red.Add(redact.Environ(ownList, append(cfg.EnvRefs(ag), cliCredentials(ag.Harness)...)...)...)
	}
	h, err := a.build(cfg, ag, own)
	if err != nil {
		return nil, set, fmt.Errorf("agent %s: %w", name, err)
	}
	a.built[cacheKey] = h
	return h, set, nil
}

// handed returns what a client hands the engine host for a session of
// agent name ("" for the default agent) from environ: the variables the
// agent's configuration and its CLI read (declared), as the client's shell
// has them. The host uses them for that session's agent and never stores
// them.
func (a *agents) handed(name string, environ []string) map[string]string {
	if name == "" {
		name = a.config().DefaultAgent()
	}
	ag, ok := a.agentFor(name)
	if !ok {
		return nil
	}
	out := map[string]string{}
	for _, kv := range a.declared(ag, environ) {
		if k, v, _ := strings.Cut(kv, "="); v != "" {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// declared returns the entries of environ agent ag reads: the variables
// its configuration names (config.EnvRefs) and, for an agent CLI, those
// the CLI reads itself (claude.DeclaredEnv, codex.DeclaredEnv).
func (a *agents) declared(ag config.Agent, environ []string) []string {
	refs := a.config().EnvRefs(ag)
	var out []string
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); slices.Contains(refs, k) {
			out = append(out, kv)
		}
	}
	switch ag.Harness {
	case config.HarnessClaude:
		out = append(out, claude.DeclaredEnv(environ)...)
	case config.HarnessCodex:
		out = append(out, codex.DeclaredEnv(environ)...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// cliCredentials are the variables an agent CLI reads its key from, which
// are secrets whatever their names say.
func cliCredentials(h config.Harness) []string {
	switch h {
	case config.HarnessClaude:
		return []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"}
	case config.HarnessCodex:
		return []string{"OPENAI_API_KEY", "CODEX_API_KEY"}
	}
	return nil
}

// envList turns a map of variables into sorted KEY=VALUE entries.
func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// inherited is the environment an agent CLI inherits: this process's,
// with the variables a client handed over in place of ours.
func (a *agents) inherited(own map[string]string) []string {
	if len(own) == 0 {
		return nil // the adapter's default: this process's environment
	}
	base := os.Environ
	if a.environ != nil {
		base = a.environ
	}
	var out []string
	for _, kv := range base() {
		if k, _, _ := strings.Cut(kv, "="); own[k] == "" {
			out = append(out, kv)
		}
	}
	return append(out, envList(own)...)
}

// secrets are the values the engine and the printer redact: those of the
// variables of environ whose names say secret (redact.Named), of every
// configured agent's api_key_env whatever its name, and of the agents'
// env entries whose names say secret.
func (a *agents) secrets(environ []string) []redact.Secret {
	var keyNames []string
	var out []redact.Secret
	for _, ag := range a.config().Agents() {
		if ag.APIKeyEnv != "" {
			keyNames = append(keyNames, ag.APIKeyEnv)
			out = append(out, redact.Secret{Name: ag.APIKeyEnv, Value: a.getenv(ag.APIKeyEnv)})
		}
		// An env that cannot be made fails the agent where it is used.
		env, _ := a.config().AgentEnv(ag)
		out = append(out, redact.Environ(env)...)
	}
	return append(out, redact.Environ(environ, keyNames...)...)
}

// errNotBuilt is returned for harness kinds this build cannot drive yet.
var errNotBuilt = errors.New("this harness is not available in this build")

func (a *agents) build(cfg *config.Config, ag config.Agent, own map[string]string) (harness.Harness, error) {
	switch ag.Harness {
	case config.HarnessDemo:
		return a.demo, nil
	case config.HarnessOpenAI:
		key, err := cfg.APIKey(ag)
		if err != nil {
			return nil, err
		}
		return openai.New(openai.Settings{BaseURL: ag.BaseURL, Model: ag.Model, APIKey: key, MaxTokens: int64(ag.MaxTokens)})
	case config.HarnessAnthropic:
		key, err := cfg.APIKey(ag)
		if err != nil {
			return nil, err
		}
		return anthropic.New(anthropic.Settings{BaseURL: ag.BaseURL, Model: ag.Model, APIKey: key, MaxTokens: int64(ag.MaxTokens)})
	case config.HarnessClaude:
		key, env, err := cliEnv(cfg, ag)
		if err != nil {
			return nil, err
		}
		return claude.New(claude.Settings{Command: ag.Command, Model: ag.Model, BaseURL: ag.BaseURL, APIKey: key, Env: env, Environ: a.inherited(own)})
	case config.HarnessCodex:
		key, env, err := cliEnv(cfg, ag)
		if err != nil {
			return nil, err
		}
		return codex.New(codex.Settings{Command: ag.Command, Model: ag.Model, BaseURL: ag.BaseURL, APIKey: key, Env: env, Environ: a.inherited(own)}), nil
	case config.HarnessACP:
		_, env, err := cliEnv(cfg, ag)
		if err != nil {
			return nil, err
		}
		if len(ag.Command) == 0 {
			return nil, fmt.Errorf("an ACP agent needs command = [...] in its configuration")
		}
		return acp.New(acp.Settings{Command: ag.Command, Env: env, Name: ag.Name}), nil
	}
	return nil, fmt.Errorf("%s: %w", ag.Harness, errNotBuilt)
}

// cliEnv is what an agent CLI gets from the configuration: its key (if it
// names one) and its extra environment.
func cliEnv(cfg *config.Config, ag config.Agent) (string, []string, error) {
	key, err := cfg.APIKey(ag)
	if err != nil {
		return "", nil, err
	}
	env, err := cfg.AgentEnv(ag)
	return key, env, err
}

// AgentInfo is one line of `atelier agents`.
type AgentInfo struct {
	Name      string `json:"name"`
	Harness   string `json:"harness"`
	Model     string `json:"model,omitempty"`
	Source    string `json:"source"` // "configured", "detected" or "built-in"
	Available bool   `json:"available"`
	Why       string `json:"why,omitempty"`
	Default   bool   `json:"default,omitempty"`
}

// list describes every configured and detectable agent, and why any is
// unavailable. It probes the machine (PATH, environment, Ollama's port), so
// it runs in commands, never in the studio's Update.
func (a *agents) list() []AgentInfo {
	var out []AgentInfo
	seen := map[string]bool{}
	for _, ag := range a.config().Agents() {
		seen[ag.Name] = true
		info := AgentInfo{Name: ag.Name, Harness: string(ag.Harness), Model: ag.Model, Source: "configured"}
		info.Available, info.Why = a.check(ag)
		if ag.Name == "demo" && ag.Harness == config.HarnessDemo {
			info.Source = "built-in"
		}
		out = append(out, info)
	}
	for _, h := range config.Harnesses() {
		name := string(h)
		if seen[name] {
			continue
		}
		ag, _ := a.agentFor(name)
		info := AgentInfo{Name: name, Harness: name, Source: "detected"}
		if h == config.HarnessDemo {
			info.Source = "built-in"
		}
		info.Available, info.Why = a.check(ag)
		if h == config.HarnessACP {
			info.Available, info.Why = false, "an ACP agent needs a command: configure [agents.NAME] with harness = \"acp\" and command = [...]"
		}
		out = append(out, info)
	}
	if ok, why := ollamaAnswers(); ok {
		out = append(out, AgentInfo{Name: "ollama", Harness: "openai", Source: "detected", Available: false,
			Why: why + ": configure [agents.NAME] with harness = \"openai\" and base_url = \"http://127.0.0.1:11434/v1\" to use it"})
	}
	def := a.config().DefaultAgent()
	for i := range out {
		out[i].Default = out[i].Name == def
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Available && !out[j].Available })
	return out
}

// check says whether an agent can run here.
func (a *agents) check(ag config.Agent) (bool, string) {
	switch ag.Harness {
	case config.HarnessDemo:
		return true, ""
	case config.HarnessOpenAI, config.HarnessAnthropic:
		if _, err := a.config().APIKey(ag); err != nil {
			return false, err.Error()
		}
	case config.HarnessClaude, config.HarnessCodex, config.HarnessACP:
		bin := string(ag.Harness)
		if len(ag.Command) > 0 {
			bin = ag.Command[0]
		}
		if _, err := exec.LookPath(bin); err != nil {
			return false, bin + " not found on PATH"
		}
	}
	if _, err := a.build(a.config(), ag, nil); errors.Is(err, errNotBuilt) {
		return false, err.Error()
	}
	if ag.Harness == config.HarnessClaude || ag.Harness == config.HarnessCodex {
		return a.login(ag)
	}
	return true, ""
}

// login says whether an agent CLI will find a login or a key, as far as
// can be told without running it or using the network (claude.HasLogin,
// codex.HasLogin): ok is false only when it certainly will not; why says
// "may need a login" when it cannot be told, and how to give it one.
func (a *agents) login(ag config.Agent) (ok bool, why string) {
	key, env, err := cliEnv(a.config(), ag)
	if err != nil {
		return false, err.Error()
	}
	if key != "" {
		return true, ""
	}
	hint, has := claude.LoginHint, claude.HasLogin
	if ag.Harness == config.HarnessCodex {
		hint, has = codex.LoginHint, codex.HasLogin
	}
	if ag.BaseURL != "" {
		if ag.Harness == config.HarnessCodex {
			return true, "" // the configured server, with no key (a local one)
		}
		// The adapter hands claude no inherited key for another server.
		return true, "may need a login: name the key of " + ag.BaseURL + " with api_key_env"
	}
	getenv := func(name string) string {
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v
			}
		}
		return a.getenv(name)
	}
	got, known, err := has(getenv)
	// In a container, or behind another program, its files are not ours.
	elsewhere := ag.Execution == config.ExecutionDocker ||
		(len(ag.Command) > 0 && filepath.Base(ag.Command[0]) != string(ag.Harness))
	switch {
	case got:
		return true, ""
	case err != nil:
		return true, "may need a login (" + err.Error() + "): " + hint
	case !known || elsewhere:
		return true, "may need a login: " + hint
	}
	return false, "not logged in: " + hint
}

// ollamaAnswers reports whether something listens on Ollama's default port.
func ollamaAnswers() (bool, string) {
	c, err := net.DialTimeout("tcp", "127.0.0.1:11434", 150*time.Millisecond)
	if err != nil {
		return false, ""
	}
	// Only the connection mattered: an error closing it changes nothing.
	_ = c.Close()
	return true, "an Ollama server answers on 127.0.0.1:11434"
}

// config is the configuration the agents are resolved from now.
func (a *agents) config() *config.Config {
	a.cfgMu.RLock()
	defer a.cfgMu.RUnlock()
	return a.cfg
}

// setConfig resolves the agents from cfg from now on: each session's next
// turn takes its agent's new settings (policy, tools, model, environment),
// and the agents named in changed are built again for it. A harness
// already built keeps the turns it runs; the engine closes a session's
// process in the harness that ran it.
func (a *agents) setConfig(cfg *config.Config, changed []string) {
	a.cfgMu.Lock()
	a.cfg = cfg
	a.cfgMu.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	for key := range a.built {
		name, _, _ := strings.Cut(key, "\x00")
		if slices.Contains(changed, name) {
			delete(a.built, key)
		}
	}
}
