package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// simpleControl builds a subcommand that applies one control to a session
// named by its only argument.
func simpleControl(s *streams, ws *string, use, short, long, example string, w *waitFlags,
	do func(t *target) (string, error)) *cobra.Command {
	cmd := &cobra.Command{
		Use: use + " SESSION", Short: short, Long: long, Example: example,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.controlOrWait(cmd.Context(), *ws, args[0], w, do)
		},
	}
	if w != nil {
		w.add(cmd)
	}
	return cmd
}

func newStartCmd(s *streams, ws *string) *cobra.Command {
	w := &waitFlags{}
	return simpleControl(s, ws, "start", "Start a session created without starting",
		`Start starts a CREATED session now, whatever its start time, in the
workspace's engine host (started in the background when none runs); with
--wait it follows the session on the host's event stream to its next stop.
When no host can be started, the start is recorded for the next engine that
opens the workspace, and with --wait this command hosts the engine itself.
`+"`sessions resume`"+` does the same for a CREATED session.`,
		`  atelier sessions start 240601
  atelier sessions start 240601 --wait --approve auto`, w,
		func(t *target) (string, error) {
			rec, err := t.api.Session(t.id)
			if err != nil {
				return "", err
			}
			if w.wait && rec.Status != sessions.Created {
				// Opening an engine that stays started it already (auto_start,
				// or its start time came): follow it from where it is. One
				// that has ended is reported by stay.
				if code, stop := stopCode(rec); stop && rec.Status != sessions.Ended {
					return "", exitFor(code, rec)
				}
				return "", nil
			}
			return startCreated(t, "start")
		})
}

// startCreated starts a CREATED session (start, and resume of a session
// that never started) and says when the start takes effect.
func startCreated(t *target, verb string) (string, error) {
	if err := t.api.Start(t.id); err != nil {
		return "", err
	}
	rec, err := t.api.Session(t.id)
	if err != nil {
		return "", err
	}
	if rec.Status != sessions.Created {
		return verb + " " + t.id + ": now", nil
	}
	if t.api.Remote() {
		return verb + " " + t.id + ": sent to the workspace's engine host", nil
	}
	return verb + " " + t.id + ": recorded: applied when the workspace's engine next runs the session", nil
}

func newPauseCmd(s *streams, ws *string) *cobra.Command {
	return simpleControl(s, ws, "pause", "Pause a running session at the next boundary its agent allows",
		`Pause holds a RUNNING session at the next boundary its agent allows (a step
for the engine's own tool loop, the end of a turn for agent CLIs); it then
becomes PAUSED. If the turn ends first, the pause is recorded as superseded.`,
		`  atelier sessions pause 240601`, nil,
		func(t *target) (string, error) {
			rc, err := t.api.Pause(t.id)
			return receipt("pause", t.id, rc), err
		})
}

func newResumeCmd(s *streams, ws *string) *cobra.Command {
	w := &waitFlags{}
	return simpleControl(s, ws, "resume", "Resume a paused session, or start one that never started",
		`Resume continues a PAUSED session, and starts a CREATED one (as
`+"`sessions start`"+` does). Given --wait, this command runs it to its next
stop when no other process runs it; it also picks up a session left RUNNING
by a process that is gone (a studio that quit, a run that stopped on an
approval with exit code 4).`,
		`  atelier sessions resume 240601
  atelier sessions resume 240601 --wait --json`, w,
		func(t *target) (string, error) {
			rec, err := t.api.Session(t.id)
			if err != nil {
				return "", err
			}
			if rec.Status == sessions.Created {
				return startCreated(t, "resume")
			}
			if w.wait && rec.Status != sessions.Paused {
				// A session left RUNNING (the studio quit, a run stopped on
				// an approval) was taken over and resumed when this engine
				// opened: follow it from where it is. One that has ended is
				// reported by stay.
				if code, stop := stopCode(rec); stop && rec.Status != sessions.Ended {
					return "", exitFor(code, rec)
				}
				return "", nil
			}
			rc, err := t.api.Resume(t.id)
			return receipt("resume", t.id, rc), err
		})
}

func newStopCmd(s *streams, ws *string) *cobra.Command {
	return simpleControl(s, ws, "stop", "Stop the turn in flight and keep the session",
		`Stop interrupts the current turn at once; the session then waits for its next
input (WAITING awaiting_input). Send it a message to go on.`,
		`  atelier sessions stop 240601`, nil,
		func(t *target) (string, error) {
			rc, err := t.api.Stop(t.id)
			return receipt("stop", t.id, rc), err
		})
}

func newCloseCmd(s *streams, ws *string) *cobra.Command {
	return simpleControl(s, ws, "close", "End a session between turns, or one that never started",
		`Close ends a session that is not in a turn (ENDED completed): a continuous
session waiting for its next message, a session waiting on a question or a
stop limit, or a CREATED session that never ran (nothing is allocated for
it). A session with a turn in flight cannot be closed: stop it first.
Closing a session that has already ended changes nothing: it says so, with
its end reason, and exits 0.`,
		`  atelier sessions close 240601`, nil,
		func(t *target) (string, error) {
			rc, err := t.api.CloseSession(t.id)
			if err != nil {
				return "", err
			}
			return receipt("close", t.id, rc), nil
		})
}

func newNudgeCmd(s *streams, ws *string) *cobra.Command {
	return simpleControl(s, ws, "nudge", "Fire a parked session's timer or event now",
		`Nudge wakes a session parked on a timer or an event at once.`,
		`  atelier sessions nudge 240601`, nil,
		func(t *target) (string, error) {
			rc, err := t.api.Nudge(t.id)
			return receipt("nudge", t.id, rc), err
		})
}

func newCompactCmd(s *streams, ws *string) *cobra.Command {
	return simpleControl(s, ws, "compact", "Replace a session's older history with a summary its agent writes",
		`Compact asks the session's agent for a summary of the conversation so far; the
task and the last two turns stay as they are, and what the agent is shown from
then on is the task, the summary and what follows. It waits for a turn in
flight to end. Agents that keep their own history (Claude Code, Codex, ACP
agents) refuse it, and so does a session with fewer than three turns.`,
		`  atelier sessions compact 240601`, nil,
		func(t *target) (string, error) {
			rc, err := t.api.Compact(t.id)
			return receipt("compact", t.id, rc), err
		})
}

func newClearCmd(s *streams, ws *string) *cobra.Command {
	return simpleControl(s, ws, "clear", "Start a session's conversation afresh",
		`Clear starts the session's conversation afresh, like /clear in a chat: from
the next turn on, the agent is shown nothing said before, and an agent that
keeps its own history (Claude Code, Codex, an ACP agent) starts a new session
of its own. Nothing is deleted: the transcript keeps every message, with a
marker where the clear applied, and the audit log records it. It waits for a
turn in flight to end.`,
		`  atelier sessions clear 240601`, nil,
		func(t *target) (string, error) {
			rc, err := t.api.Clear(t.id)
			return receipt("clear", t.id, rc), err
		})
}

func newArchiveCmd(s *streams, ws *string, archive bool) *cobra.Command {
	use, short, long := "archive", "Hide a session from the default lists",
		"Archive hides a session from `atelier sessions` and the studio's list without\ndeleting it; `atelier sessions --all` still shows it."
	if !archive {
		use, short, long = "unarchive", "Show an archived session in the lists again", "Unarchive undoes archive."
	}
	return simpleControl(s, ws, use, short, long, "  atelier sessions "+use+" 240601", nil,
		func(t *target) (string, error) {
			if err := t.api.Archive(t.id, archive); err != nil {
				return "", err
			}
			return use + "d " + t.id, nil
		})
}

func newCancelCmd(s *streams, ws *string) *cobra.Command {
	var yes bool
	cmd := simpleControl(s, ws, "cancel", "End a session for good (asks first on a terminal)",
		`Cancel ends a session (ENDED cancelled), at once for a turn in flight: the
tool call in flight gets an interrupted result. It cannot be undone, so on a
terminal it asks first; --yes skips the question.`,
		`  atelier sessions cancel 240601
  atelier sessions cancel 240601 --yes`, nil, nil)
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return s.act(cmd.Context(), *ws, args[0], func(t *target) (string, error) {
			if !yes {
				rec, err := t.api.Session(t.id)
				if err != nil {
					return "", err
				}
				ok, asked := s.confirm(fmt.Sprintf("Cancel session %s (%s, %s)? This cannot be undone. [y/N] ", t.id, rec.Title, rec.Status))
				if asked && !ok {
					return "", withCode(ExitFailed, fmt.Errorf("cancel of %s not confirmed", t.id))
				}
			}
			rc, err := t.api.Cancel(t.id)
			return receipt("cancel", t.id, rc), err
		})
	}
	return cmd
}

func newDeleteCmd(s *streams, ws *string) *cobra.Command {
	var yes bool
	cmd := simpleControl(s, ws, "delete", "Delete a session's records (needs --yes)",
		`Delete removes a session's folder under .state/. A live session is first
ended (force_deleted): its turn stopped, its interactions closed. Its turn
commits stay in the workspace history. It needs --yes.`,
		`  atelier sessions delete 240601 --yes`, nil, nil)
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "confirm the deletion")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if !yes {
			return usageErr("delete removes the session's records for good: add --yes")
		}
		return s.act(cmd.Context(), *ws, args[0], func(t *target) (string, error) {
			if err := t.api.Delete(t.id); err != nil {
				return "", err
			}
			return "deleted " + t.id, nil
		})
	}
	return cmd
}

func newSetCmd(s *streams, ws *string) *cobra.Command {
	var model, approval string
	cmd := &cobra.Command{
		Use:   "set SESSION",
		Short: "Change a session's model or approval policy",
		Long: `Set queues a change of the session's model or approval policy (ask, auto or
read-only); it applies at the next boundary, or at once between turns.`,
		Example: `  atelier sessions set 240601 --model gpt-5-mini
  atelier sessions set 240601 --approval read-only`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) error {
			if model == "" && approval == "" {
				return usageErr("set needs --model or --approval")
			}
			switch approval {
			case "", core.PolicyAsk, core.PolicyAuto, core.PolicyReadOnly:
			default:
				return usageErr("--approval must be ask, auto or read-only, not %q", approval)
			}
			return s.act(cmd.Context(), *ws, args[0], func(t *target) (string, error) {
				var lines []string
				if model != "" {
					rc, err := t.api.SetModel(t.id, model)
					if err != nil {
						return "", err
					}
					lines = append(lines, receipt("model "+model+" for", t.id, rc))
				}
				if approval != "" {
					rc, err := t.api.SetApproval(t.id, approval)
					if err != nil {
						return strings.Join(lines, "\n"), err
					}
					lines = append(lines, receipt("approval "+approval+" for", t.id, rc))
				}
				return strings.Join(lines, "\n"), nil
			})
		},
	}
	cmd.Flags().StringVar(&model, "model", "", "the model the agent uses from now on")
	cmd.Flags().StringVar(&approval, "approval", "", "the approval policy: ask, auto or read-only")
	registerEnumCompletions(cmd, map[string][]string{"approval": {core.PolicyAsk, core.PolicyAuto, core.PolicyReadOnly}})
	return cmd
}

// confirm asks a yes/no question on the terminal. asked is false when the
// input is not a terminal: nobody can answer, and the caller goes on.
func (s *streams) confirm(question string) (ok, asked bool) {
	f, isFile := s.in.(*os.File)
	if !isFile || !term.IsTerminal(f.Fd()) {
		return false, false
	}
	fmt.Fprint(s.err, question)
	line, _ := bufio.NewReader(f).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, true
	}
	return false, true
}
