package config

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// merge lays the files' settings over each other, later ones winning key
// by key.
func merge(layers ...layer) layer {
	out := layer{}
	for _, l := range layers {
		for k, s := range l {
			out[k] = s
		}
	}
	return out
}

// build turns merged settings into a Config and checks what no single key
// can: keys that depend on each other, and default_agent naming an agent.
func build(merged layer) (*Config, []Problem) {
	cfg := &Config{
		UI:           UI{Theme: "auto", Notifications: "auto"},
		Keys:         map[string]string{},
		History:      History{MaxFileSize: DefaultMaxFileSize},
		Engine:       Engine{Workers: DefaultWorkers, StuckAfter: DefaultStuckAfter, IdleExit: DefaultIdleExit},
		Docker:       Docker{Network: DefaultNetwork},
		Instances:    Instances{WarnSize: DefaultWarnSize},
		Notify:       Notify{Desktop: "auto", Events: NotifyEvents(), Timeout: DefaultNotifyAfter},
		defaultAgent: DefaultAgentName,
		agents:       map[string]Agent{},
		sources:      merged,
	}
	demo := defaultAgent(DefaultAgentName)
	demo.Harness = HarnessDemo
	cfg.agents[demo.Name] = demo

	for _, key := range mapKeys(merged) {
		v := merged[key].value
		if rest, ok := strings.CutPrefix(key, "agents."); ok {
			name, field, _ := strings.Cut(rest, ".")
			a, ok := cfg.agents[name]
			if !ok {
				a = defaultAgent(name)
			}
			setAgentField(&a, field, v)
			cfg.agents[name] = a
			continue
		}
		if action, ok := strings.CutPrefix(key, "keys."); ok {
			cfg.Keys[action] = v.(string)
			continue
		}
		setStudioKey(cfg, key, v)
	}

	var probs []Problem
	for _, name := range mapKeys(cfg.agents) {
		a := cfg.agents[name]
		probs = append(probs, checkAgent(&a, merged)...)
		cfg.agents[name] = a
	}
	if s, ok := merged["default_agent"]; ok {
		name := cfg.defaultAgent
		_, configured := cfg.agents[name]
		if !configured && !slices.Contains(harnessNames(), name) {
			probs = append(probs, s.problem("default_agent", KindValue,
				"no agent named %s: the configured agents are %s, and agents found on PATH take their harness's name",
				quoteValue(name), strings.Join(mapKeys(cfg.agents), ", ")))
		}
	}
	return cfg, probs
}

func (s setting) problem(key string, kind Kind, format string, args ...any) Problem {
	return Problem{File: s.file, Line: s.at.Line, Col: s.at.Col, Key: key, Kind: kind,
		Msg: fmt.Sprintf(format, args...)}
}

func setAgentField(a *Agent, field string, v any) {
	switch field {
	case "": // the table itself
	case "harness":
		a.Harness = Harness(v.(string))
	case "model":
		a.Model = v.(string)
	case "base_url":
		a.BaseURL = v.(string)
	case "api_key_env":
		a.APIKeyEnv = v.(string)
	case "instructions":
		a.Instructions = v.(string)
	case "tools":
		a.Tools = v.([]string)
	case "approval":
		a.Approval = Approval(v.(string))
	case "rules":
		a.Rules = v.([]Rule)
	case "execution":
		a.Execution = Execution(v.(string))
	case "image":
		a.Image = v.(string)
	case "isolation":
		a.Isolation = v.(string)
	case "command":
		a.Command = v.([]string)
	case "max_turns":
		a.MaxTurns = v.(int)
	case "max_tokens":
		a.MaxTokens = v.(int)
	default:
		if name, ok := strings.CutPrefix(field, "env."); ok {
			if a.Env == nil {
				a.Env = map[string]string{}
			}
			a.Env[name] = v.(string)
		}
	}
}

func setStudioKey(cfg *Config, key string, v any) {
	switch key {
	case "default_agent":
		cfg.defaultAgent = v.(string)
	case "ui.theme":
		if s := v.(string); slices.Contains(themeNames, s) {
			cfg.UI.Theme, cfg.UI.ThemeFile = s, ""
		} else {
			cfg.UI.Theme, cfg.UI.ThemeFile = "", s
		}
	case "ui.notifications":
		cfg.UI.Notifications = v.(string)
	case "history.max_file_size":
		cfg.History.MaxFileSize = v.(int64)
	case "history.secret_patterns":
		cfg.History.SecretPatterns = v.([]string)
	case "engine.workers":
		cfg.Engine.Workers = v.(int)
	case "engine.stuck_after":
		cfg.Engine.StuckAfter = v.(time.Duration)
	case "engine.idle_exit":
		cfg.Engine.IdleExit = v.(time.Duration)
	case "instances.root":
		cfg.Instances.Root = v.(string)
	case "instances.include":
		cfg.Instances.Include = v.([]string)
	case "instances.omit":
		cfg.Instances.Omit = v.([]string)
	case "instances.setup":
		cfg.Instances.Setup = v.(string)
	case "instances.warn_size":
		cfg.Instances.WarnSize = v.(int64)
	case "docker.network":
		cfg.Docker.Network = v.(string)
	case "docker.memory":
		cfg.Docker.Memory = v.(int64)
	case "docker.cpus":
		cfg.Docker.CPUs = v.(float64)
	case "notify.command":
		cfg.Notify.Command = v.([]string)
	case "notify.desktop":
		cfg.Notify.Desktop = v.(string)
	case "notify.events":
		cfg.Notify.Events = v.([]string)
	case "notify.timeout":
		cfg.Notify.Timeout = v.(time.Duration)
	}
}

// checkAgent fills in the harness of an agent named after one and checks
// the keys that depend on the harness or on each other.
func checkAgent(a *Agent, merged layer) []Problem {
	prefix := "agents." + a.Name
	table := merged[prefix]
	var probs []Problem
	if a.Harness == "" {
		if !slices.Contains(harnessNames(), a.Name) {
			return append(probs, table.problem(prefix+".harness", KindValue,
				"required: one of %s", strings.Join(harnessNames(), ", ")))
		}
		a.Harness = Harness(a.Name) // [agents.claude] tunes the claude agent
	}
	if s, ok := merged[prefix+".command"]; ok && a.Harness.OwnLoop() {
		probs = append(probs, s.problem(prefix+".command", KindValue,
			"only used by the acp, claude and codex harnesses (this agent's harness is %s)", a.Harness))
	}
	if a.Harness == HarnessACP && len(a.Command) == 0 {
		at := table
		if s, ok := merged[prefix+".harness"]; ok {
			at = s
		}
		probs = append(probs, at.problem(prefix+".command", KindValue,
			`required with harness = "acp": the agent's command line, as in ["gemini", "--acp"]`))
	}
	for _, k := range []string{"base_url", "api_key_env"} {
		if s, ok := merged[prefix+"."+k]; ok && !a.Harness.TakesKey() {
			probs = append(probs, s.problem(prefix+"."+k, KindValue,
				"only used by the openai, anthropic, claude and codex harnesses (this agent's harness is %s; give an ACP agent its server and key in env)", a.Harness))
		}
	}
	if a.Execution == ExecutionDocker && a.Image == "" {
		probs = append(probs, merged[prefix+".execution"].problem(prefix+".execution", KindValue,
			`docker execution needs an image: set %s.image, as in image = "golang:1.26"`, prefix))
	}
	return probs
}
