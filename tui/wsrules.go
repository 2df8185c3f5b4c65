package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/tui/actions"
	"github.com/atelier-studio/atelier/tui/dialog"
)

// Workspace rules: W on an approval keeps a rule that always allows this
// command (or this path) in this workspace, for this user, and allows the
// call waiting; the engine then allows such calls without asking and says
// which rule did. The settings tab lists the rules; R there removes one.

// rulesMsg carries the workspace's rules, read for the settings tab, or
// the outcome of a change.
type rulesMsg struct {
	rules []config.WorkspaceRule
	err   error
	what  string // the change made, for the status line
}

// alwaysHere keeps the rule, then allows the call that asked.
func (sp *settingsPart) alwaysHere(act actions.AlwaysHere) tea.Cmd {
	store := sp.opts.Rules
	if sp.opts.Remote != "" {
		sp.status.set("the engine's machine keeps its workspace rules: add them there (W is not available attached from another machine)", true)
		return nil
	}
	if store == nil {
		sp.status.set("no place to keep rules: the user's configuration folder is unknown", true)
		return nil
	}
	ws, e, now := sp.eng.Workspace(), sp.eng, sp.opts.Now()
	r := config.WorkspaceRule{Tool: act.Tool, Subject: act.Subject, Added: now}
	rule := sp.callErr(act.SessionID, "always allowed here: "+r.String(), func() error {
		if err := store.Add(ws, r); err != nil {
			return err
		}
		return e.Answer(act.SessionID, act.InteractionID, core.Answer{Decision: sess.AllowOnce, By: "operator"})
	})
	return tea.Batch(rule, sp.loadRules())
}

// loadRules reads the workspace's rules for the settings tab.
func (sp *settingsPart) loadRules() tea.Cmd {
	store, ws := sp.opts.Rules, sp.eng.Workspace()
	if store == nil {
		return nil
	}
	return func() tea.Msg {
		rules, err := store.Rules(ws)
		return rulesMsg{rules: rules, err: err}
	}
}

// pickRuleToRemove lists the rules to remove one.
func (sp *settingsPart) pickRuleToRemove(rules []config.WorkspaceRule) {
	if len(rules) == 0 {
		sp.status.set("this workspace has no rules (W on an approval makes one)", false)
		return
	}
	entries := make([]dialog.Entry, 0, len(rules))
	for _, r := range rules {
		entries = append(entries, dialog.Entry{Scope: "rule", Desc: r.String()})
	}
	sp.dlg.open(dialog.NewPalette(sp.st, "Remove a workspace rule", entries),
		onOK(func(r dialog.Result) tea.Cmd { return sp.removeRule(rules[r.Chosen]) }))
}

// removeRule drops a rule and reads the rules again.
func (sp *settingsPart) removeRule(r config.WorkspaceRule) tea.Cmd {
	store, ws := sp.opts.Rules, sp.eng.Workspace()
	if store == nil {
		return nil
	}
	return func() tea.Msg {
		if err := store.Remove(ws, r.Tool, r.Subject); err != nil {
			return rulesMsg{err: err}
		}
		rules, err := store.Rules(ws)
		return rulesMsg{rules: rules, err: err, what: "removed the rule " + r.String() + ": such calls ask again"}
	}
}

// ruleLines are the settings tab's lines for the rules.
func ruleLines(rules []config.WorkspaceRule, err error) []string {
	if err != nil {
		return []string{"  ✗ " + err.Error()}
	}
	if len(rules) == 0 {
		return []string{"  none: W on an approval always allows that command (or path) here"}
	}
	out := make([]string, 0, len(rules))
	for _, r := range rules {
		out = append(out, "  "+r.String()+"  (since "+r.Added.Local().Format("2006-01-02")+")")
	}
	return append(out, "  R removes one")
}
