package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/redact"
	"github.com/atelier-studio/atelier/sessions"
)

// TestBinaryExecSeesNoOperatorKeys: `sessions exec ID -- env` runs with
// the base environment and the agent's configured env, nothing else of the
// operator's: an exported token and an unrelated variable stay out, and a
// configured env entry that takes a secret is shown redacted, on the
// terminal and in the audit log. Before, the command got Atelier's whole
// environment.
func TestBinaryExecSeesNoOperatorKeys(t *testing.T) {
	t.Parallel()
	const token = "tok-operator-0123456789"
	b := newSandbox(t)
	b.env = append(b.env, "ATELIER_TEST_DEPLOY_TOKEN="+token, "ATELIER_TEST_PLAIN=plain-operator-value")
	b.configure(quickAgent + `
[agents.quick.env]
QUICK_SETTING = "visible-setting"
QUICK_SECRET = "${ATELIER_TEST_DEPLOY_TOKEN}"
`)
	id := b.create()
	r := b.run("sessions", "exec", id, "--", "env").want(t, ExitOK)
	for _, want := range []string{"PATH=", "HOME=", "QUICK_SETTING=visible-setting", "QUICK_SECRET=«redacted "} {
		if !strings.Contains(r.out, want) {
			t.Errorf("env shows no %s:\n%s", want, r.out)
		}
	}
	for _, leak := range []string{token, "plain-operator-value"} {
		if strings.Contains(r.out+r.err, leak) {
			t.Errorf("the operator's %s reached the command:\n%s", leak, r.out)
		}
	}
	audit, err := os.ReadFile(filepath.Join(b.ws, sessions.StateDir, "sessions", id, sessions.TurnsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(audit), "QUICK_SETTING=visible-setting") || strings.Contains(string(audit), token) {
		t.Errorf("the audit log:\n%s", audit)
	}
}

// TestPrinterRedacts: what a run prints holds no secret, a value split
// across two streamed deltas included, as text and as JSON; the text
// around it is printed whole.
func TestPrinterRedacts(t *testing.T) {
	const secret = "sk-printer-0123456789"
	delta := func(part int, text string) core.Event {
		return core.Event{Kind: core.EvDelta, SessionID: "s", Delta: &core.Delta{MessageID: "m1", Part: part, Type: sessions.TextPart, Text: text}}
	}
	events := []core.Event{
		delta(0, "the key is sk-printer-01"),
		delta(0, "23456789, done"),
		{Kind: core.EvNotice, SessionID: "s", Text: "a notice quoting " + secret},
		delta(1, "and sk-printer-"),
		{Kind: core.EvMessage, SessionID: "s", Message: &sessions.Message{ID: "m1", Complete: true, Parts: []sessions.Part{
			{Type: sessions.TextPart, Text: "the key is " + secret + ", done"}, {Type: sessions.TextPart, Text: "and sk-printer-"}}}},
	}
	for _, asJSON := range []bool{false, true} {
		var out, errb bytes.Buffer
		s := &streams{out: &out, err: &errb, env: env{getenv: os.Getenv,
			secrets: redact.New([]redact.Secret{{Name: "ATELIER_TEST_API_KEY", Value: secret}})}}
		p := newPrinter(s, asJSON)
		for _, ev := range events {
			p.event(ev)
		}
		p.finish()
		all := out.String() + errb.String()
		if strings.Contains(all, "0123456789") {
			t.Errorf("json %v: the secret was printed:\n%s", asJSON, all)
		}
		if !strings.Contains(all, "«redacted ATELIER_TEST_API_KEY»") {
			t.Errorf("json %v: no marker:\n%s", asJSON, all)
		}
		if !asJSON && !strings.HasPrefix(out.String(), "the key is «redacted ATELIER_TEST_API_KEY», done\nand sk-printer-") {
			t.Errorf("text output %q", out.String())
		}
	}
}
