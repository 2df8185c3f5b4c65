package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/internal/termsafe"
	"github.com/atelier-studio/atelier/sessions"
)

// trustState shows what a foreign .state/ holds (its sessions, and the tool
// calls a resumed turn would run) and, once the operator says so (or gave
// --yes), adopts it: this user's Atelier then drives its sessions. Pending
// calls stay unsealed, so the engine still asks before running any of them.
func (s *streams) trustState(ws string, yes bool) error {
	if _, err := os.Lstat(filepath.Join(ws, sessions.StateDir)); err != nil {
		return usageErr("%s has no %s/: nothing to adopt", ws, sessions.StateDir)
	}
	st, err := sessions.Open(ws)
	if err != nil {
		return err
	}
	if !st.Foreign() {
		if st.ReadOnly() {
			return withCode(ExitFailed, fmt.Errorf("%s/ is read-only, not foreign: %s", sessions.StateDir, st.ReadOnlyReason()))
		}
		fmt.Fprintf(s.out, "%s/ of %s is already yours\n", sessions.StateDir, ws)
		return nil
	}
	fmt.Fprintf(s.out, "%s/ of %s was not made by your Atelier (%s). It holds:\n", sessions.StateDir, ws, st.Trust().Why)
	entries, err := st.List()
	if err != nil {
		return err
	}
	pending := 0
	for _, en := range entries {
		rec := en.Session
		if en.Unreadable() {
			fmt.Fprintf(s.out, "  %s  (unreadable)\n", rec.ID)
			continue
		}
		fmt.Fprintf(s.out, "  %s  %-8s %-10s agent %s, approval %s: %s\n", rec.ID, rec.Status, rec.Mode, rec.Agent,
			orDefault(rec.Approval, "ask"), termsafe.Visible(rec.Title))
		msgs, _, err := st.Log(rec.ID).Messages()
		if err != nil {
			fmt.Fprintf(s.out, "      (its transcript cannot be read: %v)\n", err)
			continue
		}
		for _, m := range msgs {
			for _, p := range m.Parts {
				if p.Tool != nil && !p.Tool.State.Finished() {
					pending++
					fmt.Fprintf(s.out, "      pending call %s: %s\n", p.Tool.Name, termsafe.Visible(clipText(p.Tool.Input, 200)))
				}
			}
		}
	}
	if len(entries) == 0 {
		fmt.Fprintln(s.out, "  no sessions")
	}
	if pending > 0 {
		fmt.Fprintf(s.out, "Adopted, %d pending call(s) will still ask before they run again.\n", pending)
	}
	if !yes {
		ok, asked := s.confirm("Adopt it as yours? Its sessions will resume and run. [y/N] ")
		switch {
		case !asked:
			return usageErr("no terminal to ask on: read the list above, then adopt it with `atelier trust --state --yes`")
		case !ok:
			return withCode(ExitFailed, fmt.Errorf("%s/ not adopted", sessions.StateDir))
		}
	}
	// A host that opened the state as foreign holds it read-only: it
	// stops first, and the next command's host opens the adopted state.
	ctx, cancel := context.WithTimeout(context.Background(), host.DefaultStopTimeout)
	defer cancel()
	if _, err := host.Stop(ctx, ws); err != nil && !errors.Is(err, host.ErrNotRunning) {
		return withCode(ExitFailed, fmt.Errorf("stop the host that holds the foreign state: %w", err))
	}
	if err := st.Adopt(); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "adopted %s/ of %s\n", sessions.StateDir, ws)
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// clipText cuts s to n runes, marking the cut.
func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
