package config

import (
	"strings"
	"testing"
)

func TestEffectiveMasksSecrets(t *testing.T) {
	f := newFixture(t)
	f.env["GH"] = "ghp_realtokenvalue"
	f.writeUser(lines(
		"[agents.local]",
		`harness = "openai"`,
		`api_key_env = "OPENAI_KEY"`,
		"[agents.local.env]",
		`GITHUB_TOKEN = "${GH}"`,
		`DB_PASSWORD = "${DBPW}"`,
		`GOFLAGS = "-mod=mod"`,
		"[keys]",
		`api_key = "ctrl+k"`,
		`open = "o"`,
	))
	cfg := f.load()
	got := map[string]Entry{}
	for _, e := range cfg.Effective() {
		got[e.Key] = e
	}
	masks := map[string]bool{
		"agents.local.env.GITHUB_TOKEN": true,
		"agents.local.env.DB_PASSWORD":  true,
		"keys.api_key":                  true,
		"agents.local.env.GOFLAGS":      false,
		"agents.local.api_key_env":      false, // a variable's name, not a secret
		"keys.open":                     false,
	}
	for key, want := range masks {
		e, ok := got[key]
		if !ok {
			t.Errorf("%s missing from Effective", key)
			continue
		}
		if (e.Value == Mask) != want {
			t.Errorf("%s = %s, masked should be %v", key, e.Value, want)
		}
	}
	if got["agents.local.api_key_env"].Value != `"OPENAI_KEY"` {
		t.Errorf("api_key_env shown as %s", got["agents.local.api_key_env"].Value)
	}
	for _, e := range cfg.Effective() {
		if strings.Contains(e.Value, "ghp_") {
			t.Errorf("%s shows a secret: %s", e.Key, e.Value)
		}
	}
}

func TestEffectiveListsSourcesAndDefaults(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines("[engine]", `stuck_after = "90s"`, "[history]", "max_file_size = 1000"))
	f.writeWorkspace(lines("[docker]", `memory = "2g"`, "cpus = 0.5"))
	f.trust()
	want := map[string]Entry{
		"default_agent":         {Value: `"demo"`},
		"agents.demo.harness":   {Value: `"demo"`},
		"agents.demo.approval":  {Value: `"ask"`},
		"engine.workers":        {Value: "4"},
		"engine.stuck_after":    {Value: `"1m30s"`, File: f.user, Line: 2},
		"history.max_file_size": {Value: "1000", File: f.user, Line: 4},
		"docker.memory":         {Value: `"2GiB"`, File: f.wsFile(), Line: 2},
		"docker.cpus":           {Value: "0.5", File: f.wsFile(), Line: 3},
		"docker.network":        {Value: `"none"`},
		"ui.theme":              {Value: `"auto"`},
	}
	seen := map[string]bool{}
	for _, e := range f.load().Effective() {
		if seen[e.Key] {
			t.Errorf("%s listed twice", e.Key)
		}
		seen[e.Key] = true
		w, ok := want[e.Key]
		if !ok {
			continue
		}
		w.Key = e.Key
		if e != w {
			t.Errorf("entry %+v, want %+v", e, w)
		}
		delete(want, e.Key)
	}
	for k := range want {
		t.Errorf("%s missing from Effective", k)
	}
}

func TestMasked(t *testing.T) {
	for key, want := range map[string]bool{
		"agents.x.api_key": true, "a.session_token": true, "client_secret": true, "db.password": true,
		"agents.x.env.AWS_SECRET_ACCESS_KEY": true, "agents.x.env.NPM_TOKEN": true,
		"agents.x.api_key_env": false, "agents.x.env.KEYBOARD": false, "agents.x.env.PATH": false,
		"agents.x.model": false, "keys.quit": false,
	} {
		if got := masked(key); got != want {
			t.Errorf("masked(%q) = %v, want %v", key, got, want)
		}
	}
}
