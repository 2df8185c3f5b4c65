package cli

import (
	"fmt"
	"strings"

	"github.com/atelier-studio/atelier/workflow/runs"
)

// printWorkflows lists workflows as a table: name, where, description (or
// why it cannot be used).
func (s *streams) printWorkflows(all []runs.Source) error {
	if len(all) == 0 {
		fmt.Fprintln(s.out, "no workflows (.atelier/workflows/NAME.toml, or workflows/NAME.toml beside config.toml)")
		return nil
	}
	t := s.table()
	fmt.Fprintln(t, "NAME\tWHERE\tDESCRIPTION")
	for _, w := range all {
		where := "user"
		if w.Workspace {
			where = "workspace"
		}
		about := w.Description
		if w.Error != "" {
			about = "cannot be used: " + w.Error
		}
		fmt.Fprintf(t, "%s\t%s\t%s\n", w.Name, where, about)
	}
	return t.Flush()
}

// printRuns lists runs as a table, newest first.
func (s *streams) printRuns(all []runs.Run) error {
	if len(all) == 0 {
		fmt.Fprintln(s.out, "no runs")
		return nil
	}
	t := s.table()
	fmt.Fprintln(t, "RUN\tWORKFLOW\tKEY\tSTATUS\tSTEP\tSESSION\tUPDATED")
	for _, r := range all {
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Workflow, r.Key, r.Status, orDash(r.Current),
			orDash(r.Session), r.Updated.Local().Format("2006-01-02 15:04:05"))
	}
	return t.Flush()
}

// printRun prints one run's record for a person.
func (s *streams) printRun(r runs.Run) error {
	t := s.table()
	fmt.Fprintf(t, "run\t%s\n", r.ID)
	fmt.Fprintf(t, "workflow\t%s (%s)\n", r.Workflow, r.File)
	fmt.Fprintf(t, "key\t%s\n", r.Key)
	fmt.Fprintf(t, "status\t%s\n", r.Status)
	fmt.Fprintf(t, "session\t%s\n", orDash(r.Session))
	fmt.Fprintf(t, "attempt\t%d\n", r.Attempt)
	fmt.Fprintf(t, "approve\t%s\n", r.Approve)
	if r.Waiting != "" {
		fmt.Fprintf(t, "waiting\t%s (step %s)\n", r.Waiting, r.Current)
	}
	if f := r.Failure; f != nil {
		fmt.Fprintf(t, "failure\t%s at step %q: %s\n", f.Kind, f.Step, f.Message)
	}
	if r.CloseError != "" {
		fmt.Fprintf(t, "close\tfailed: %s\n", r.CloseError)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(s.out, "\nsteps:")
	st := s.table()
	for _, x := range r.Steps {
		fmt.Fprintf(st, "  %s\t%s\t%s\t%s\n", x.Key, x.Kind, x.Status, stepSummary(x))
	}
	if r.Current != "" && r.Status != runs.Failed {
		fmt.Fprintf(st, "  %s\t\t%s\t\n", r.Current, r.Status)
	}
	if err := st.Flush(); err != nil {
		return err
	}
	if len(r.Result) > 0 {
		fmt.Fprintln(s.out, "\nresult:")
		return writeJSON(s, r.Result)
	}
	return nil
}

// stepSummary is one line about a step's outcome.
func stepSummary(x runs.StepResult) string {
	if x.Error != "" {
		return x.Error
	}
	if x.ExitCode != nil {
		return fmt.Sprintf("exit %d, %d bytes out, %d bytes err", *x.ExitCode, len(x.Stdout), len(x.Stderr))
	}
	if len(x.Output) > 0 {
		return string(x.Output)
	}
	line, _, _ := strings.Cut(x.Text, "\n")
	if r := []rune(line); len(r) > 72 {
		line = string(r[:72]) + "…"
	}
	return line
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
