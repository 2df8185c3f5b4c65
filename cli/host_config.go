package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/trigger"
)

// A host of this binary follows its configuration's files while it runs
// (host.Reconfigure watches them). Each part of a change applies at its
// own boundary:
//
//   - triggers: at once, once the files are quiet: a new trigger arms, a
//     removed one disarms, a changed one is armed again (between two
//     firings; a firing in flight finishes first);
//   - agents and default_agent (their policies, tools, models,
//     environment): from each session's next turn, and for every session
//     created after; a changed agent's harness is built again for it;
//   - ui and keys: they are the studio's, which reads them when it starts;
//   - everything else (engine, history, instances, docker, notify): when
//     the host restarts (`atelier serve --restart`), since the engine and
//     the notification channels are made with them once.
//
// A change is refused, whole, when the files fail to load (the notice
// names each key and why) and when a workspace file the host obeyed is no
// longer trusted as it now is: the host keeps what it had and says so.

// hostConfig is the configuration a host of this binary uses, as it
// opened and as reloads changed it.
type hostConfig struct {
	mu sync.Mutex // guards everything: reloads run beside API requests
	lo config.LoadOptions
	// started is the configuration the host opened with: what only a
	// restart applies is measured from it.
	started, cfg *config.Config
	loaded       time.Time
	// wsDigest is the workspace file's digest as last read ("" for none):
	// a change to an untrusted file is said once, not at every reload.
	wsDigest   string
	notApplied []string
	ag         *agents
	trig       *triggerCompanion
}

// opened records the configuration and agents the host's Open made, lo
// being how it loaded them.
func (h *hostConfig) opened(lo config.LoadOptions, cfg *config.Config, ag *agents) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lo, h.started, h.cfg, h.ag, h.loaded = lo, cfg, cfg, ag, time.Now()
	h.wsDigest = workspaceDigest(cfg.WorkspaceFile)
}

// current is the configuration in force; nil before the engine opened.
func (h *hostConfig) current() *config.Config {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cfg
}

// companion wraps the host's trigger companion so reloads can re-arm it.
func (h *hostConfig) companion(inner func(*core.Engine) (host.Companion, error)) func(*core.Engine) (host.Companion, error) {
	return func(e *core.Engine) (host.Companion, error) {
		c, err := inner(e)
		if tc, ok := c.(*triggerCompanion); ok {
			h.mu.Lock()
			h.trig = tc
			h.mu.Unlock()
		}
		return c, err
	}
}

// reconfigure is the host's watch of the files lo reads.
func (h *hostConfig) reconfigure(lo config.LoadOptions) *host.Reconfigure {
	return &host.Reconfigure{Files: lo.Watched(), Apply: h.reload}
}

// restartHint is how a key that only a restart applies is said.
const restartHint = "applies when the host restarts (`atelier serve --restart`)"

// reload loads the files again and applies what changed, or keeps the
// configuration in force; it returns the notices that say which.
func (h *hostConfig) reload() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cfg == nil {
		return nil // the engine is not open yet: Open reads the files
	}
	next, err := config.Load(h.lo)
	digest := workspaceDigest(h.cfg.WorkspaceFile)
	wsChanged := digest != h.wsDigest
	h.wsDigest = digest
	if err != nil {
		return h.refuse("kept the previous configuration: " + problemsText(err))
	}
	if !obeyed(next.WorkspaceTrust) && h.cfg.WorkspaceTrust == config.TrustTrusted {
		return h.refuse(fmt.Sprintf("kept the previous configuration: %s is %s since it was trusted: run `atelier trust` to apply it",
			next.WorkspaceFile, map[config.TrustState]string{config.TrustChanged: "changed", config.TrustUntrusted: "no longer trusted"}[next.WorkspaceTrust]))
	}
	var out []string
	if !obeyed(next.WorkspaceTrust) && wsChanged {
		out = append(out, fmt.Sprintf("%s changed but is not trusted: its change is not applied; run `atelier trust` to apply it", next.WorkspaceFile))
	}
	for _, n := range next.Notices {
		if n.Kind != config.NoticeUntrusted && n.Kind != config.NoticeChanged && !slices.Contains(h.cfg.Notices, n) {
			out = append(out, n.Text)
		}
	}
	ch := config.Compare(h.cfg, next)
	if ch.Empty() {
		return out
	}
	var done []string
	if ch.TriggersChanged() && h.trig != nil {
		if err := h.trig.rearm(next.Triggers); err != nil {
			return append(out, h.refuse("kept the previous configuration: the triggers could not be armed: "+err.Error())...)
		}
		for _, l := range []struct {
			names []string
			what  string
		}{{ch.Armed, "armed"}, {ch.Disarmed, "disarmed"}, {ch.Rearmed, "armed again"}} {
			for _, n := range l.names {
				done = append(done, "trigger "+n+" "+l.what)
			}
		}
		if len(trigger.KeepAlive(next.Triggers)) > 0 && len(trigger.KeepAlive(h.started.Triggers)) == 0 {
			// The idle exit is decided as the host starts (host.Run).
			done = append(done, "a schedule or on_change trigger keeps the host up only once it restarts (`atelier serve --restart`): until then it still exits when idle")
		}
	}
	var agentsChanged, live, studio, restart []string
	for _, k := range ch.Keys {
		switch {
		case strings.HasPrefix(k, "agents."):
			name, _, _ := strings.Cut(strings.TrimPrefix(k, "agents."), ".")
			if !slices.Contains(agentsChanged, name) {
				agentsChanged = append(agentsChanged, name)
			}
			live = append(live, k)
		case k == "default_agent":
			live = append(live, k)
		case strings.HasPrefix(k, "ui.") || strings.HasPrefix(k, "keys."):
			studio = append(studio, k)
		default:
			restart = append(restart, k)
		}
	}
	if h.ag != nil {
		h.ag.setConfig(next, agentsChanged)
	}
	if len(live) > 0 {
		done = append(done, strings.Join(live, ", ")+" from each session's next turn")
	}
	if len(studio) > 0 {
		done = append(done, strings.Join(studio, ", ")+" when a studio next starts")
	}
	if len(restart) > 0 {
		done = append(done, strings.Join(restart, ", ")+" "+restartHint)
	}
	h.cfg, h.loaded = next, time.Now()
	h.notApplied = h.restartPending()
	return append(out, "configuration reloaded: "+strings.Join(done, "; "))
}

// refuse keeps the configuration in force and records why.
func (h *hostConfig) refuse(why string) []string {
	h.notApplied = append([]string{why}, h.restartPending()...)
	return []string{why}
}

// restartPending says what the configuration in force differs in from
// the one the host opened with, that only a restart applies.
func (h *hostConfig) restartPending() []string {
	var out []string
	for _, k := range config.Compare(h.started, h.cfg).Keys {
		if !strings.HasPrefix(k, "agents.") && k != "default_agent" && !strings.HasPrefix(k, "ui.") && !strings.HasPrefix(k, "keys.") {
			out = append(out, k+": "+restartHint)
		}
	}
	return out
}

// view is the configuration the host uses, for GET /v1/config.
func (h *hostConfig) view() client.HostConfig {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := client.HostConfig{LoadedAt: h.loaded.UTC(), NotApplied: slices.Clone(h.notApplied)}
	if h.cfg == nil {
		return v
	}
	v.Files = append(v.Files, client.ConfigFile{Path: h.cfg.UserFile, Kind: "user"})
	if h.cfg.WorkspaceFile != "" {
		v.Files = append(v.Files, client.ConfigFile{Path: h.cfg.WorkspaceFile, Kind: "workspace", Trust: string(h.cfg.WorkspaceTrust)})
	}
	for _, e := range h.cfg.Effective() {
		v.Entries = append(v.Entries, client.ConfigEntry{Key: e.Key, Value: e.Value, File: e.File, Line: e.Line})
	}
	return v
}

// obeyed reports whether a workspace file in state s is in force (or
// there is none to obey).
func obeyed(s config.TrustState) bool { return s == config.TrustTrusted || s == config.TrustNone }

// workspaceDigest is the digest of the workspace file as it is now, ""
// when there is none (or it cannot be read: the reload says why).
func workspaceDigest(file string) string {
	if file == "" {
		return ""
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	return config.Digest(data)
}

// problemsText words a load error on one line, each problem by its key
// first: "agents.x.execution: must be ... (at /path/config.toml:4)".
func problemsText(err error) string {
	var ce *config.Error
	if !errors.As(err, &ce) {
		return err.Error()
	}
	var parts []string
	for _, p := range ce.Problems {
		if p.Key == "" {
			parts = append(parts, p.Error())
			continue
		}
		at := p.File
		if p.Line > 0 {
			at = fmt.Sprintf("%s:%d", p.File, p.Line)
		}
		parts = append(parts, fmt.Sprintf("%s: %s (at %s)", p.Key, p.Msg, at))
	}
	return strings.Join(parts, "; ")
}
