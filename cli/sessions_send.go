package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

func newSendCmd(s *streams, ws *string) *cobra.Command {
	w := &waitFlags{}
	var in sendInput
	var promptFile, outputFile string
	cmd := &cobra.Command{
		Use:   "send SESSION (TEXT... | - | --prompt-file FILE)",
		Short: "Give a session its next message, or steer its turn with --steer",
		Long: `Send gives a session a prompt: a WAITING session starts its next turn with it;
a running one queues it for after the current turn (see ` + "`sessions queue`" + `).
With --steer the text is an instruction for the turn in flight, delivered at
the next boundary its agent allows.

With --key, a key the session already has sends nothing again. A done key
prints its recorded result (the reply, and the status its turn left); with
--wait the command exits at once with the code the first --wait gave. A
queued or started key names its item; with --wait the command follows the
session to its next stop, then prints the key's result. An uncertain key
(its turn may have run without its result being recorded) exits 1: see
` + "`sessions keys --forget`" + `. The same key with another text is refused
(exit 2).

With --output FILE (a JSON Schema; - reads standard input) the prompt asks
for a structured answer: the engine adds guidance derived from the schema
and checks the turn's final answer against it. With --wait the command then
prints the validated JSON alone on stdout (the agent's text goes to stderr;
with --json, an output event) and exits 5 when the answer has no JSON that
matches, with the validation errors; a schema that cannot be used is
refused before anything is sent (exit 2). The outcome is recorded with the
prompt's key too.

Words after SESSION are joined into one text; a single - reads the text from
standard input instead, and --prompt-file from a file (up to 16 MiB).`,
		Example: `  atelier sessions send 240601 "now add a test for the parser"
  atelier sessions send 240601 --steer "use the standard library only"
  atelier sessions send 240601 --key step-2 --wait --approve auto "run the tests"
  atelier sessions send 240601 --prompt-file review-notes.md
  atelier sessions send 240601 --output report.schema.json --wait "summarise the change"`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if len(args) == 1 && promptFile == "" {
				return usageErr("give the message: as words after SESSION, as - to read standard input, or with --prompt-file FILE")
			}
			if in.text, err = s.promptText(args[1:], promptFile); err != nil {
				return err
			}
			if strings.TrimSpace(in.text) == "" {
				return usageErr("the message is empty")
			}
			if outputFile != "" && in.steer {
				return usageErr("--output goes with a prompt: a steer has no answer of its own")
			}
			if outputFile == "-" && (promptFile == "-" || (len(args) == 2 && args[1] == "-")) {
				return usageErr("the message and --output cannot both be read from standard input")
			}
			if in.output, err = s.readSchema(outputFile); err != nil {
				return err
			}
			return s.send(cmd.Context(), *ws, args[0], in, w)
		},
	}
	cmd.Flags().BoolVar(&in.steer, "steer", false, "steer the turn in flight instead of queueing a prompt")
	cmd.Flags().StringVar(&promptFile, "prompt-file", "", "read the text from this file (- for standard input)")
	cmd.Flags().StringVar(&in.key, "key", "", "idempotency key: a key the session already has is not sent again (its result is printed)")
	cmd.Flags().StringVar(&outputFile, "output", "", "a JSON Schema file the answer must match: with --wait, print the validated JSON (exit 5 when it does not match)")
	w.add(cmd)
	return cmd
}

// sendInput is what `sessions send` gives a session.
type sendInput struct {
	text, key string
	steer     bool
	output    json.RawMessage // --output: the schema the answer must match
}

func (in sendInput) verb() string {
	if in.steer {
		return "steer"
	}
	return "send"
}

func (in sendInput) submit(t *target) (core.Receipt, error) {
	var keys []string
	if in.key != "" {
		keys = []string{in.key}
	}
	if in.steer {
		return t.api.Steer(t.id, in.text, keys...)
	}
	if in.output != nil {
		return t.api.Prompt(t.id, core.Prompt{Text: in.text, Key: in.key, Output: in.output})
	}
	return t.api.Send(t.id, in.text, keys...)
}

// send gives a session its input: as a short command (sendShort), or, with
// --wait, through an engine that stays and runs the session to its next
// stop. A key the session already has sends nothing (see repeated).
func (s *streams) send(ctx context.Context, workspace, idArg string, in sendInput, w *waitFlags) (err error) {
	if err := w.check(); err != nil {
		return err
	}
	if !w.wait {
		return s.sendShort(ctx, workspace, idArg, in, w)
	}
	// The workspace's host runs the session: send through it and follow
	// its event stream (remote_wait.go).
	h, err := s.openHostWait(ctx, workspace, idArg)
	if err != nil {
		return err
	}
	defer func() { err = joinStop(err, h.close()) }()
	return s.remoteSend(ctx, h, in, w)
}

// sendShort gives a session its input and returns: through the
// workspace's host when one runs, else through a passive engine.
func (s *streams) sendShort(ctx context.Context, workspace, idArg string, in sendInput, w *waitFlags) (err error) {
	t, done, err := s.shortTarget(ctx, workspace, idArg)
	if err != nil {
		return err
	}
	defer done(&err)
	rc, err := in.submit(t)
	if errors.Is(err, core.ErrKeyConflict) {
		return keyConflict(err, t.id)
	}
	if err != nil {
		return sessionErr(err)
	}
	if rc.Key != nil {
		return s.repeated(t, in, *rc.Key, w, nil) // without --wait: nothing to follow
	}
	fmt.Fprintln(s.out, receipt(in.verb(), t.id, rc))
	return nil
}

// keyConflict is the error of a key already used for other work.
func keyConflict(err error, id string) error {
	return withCode(ExitUsage, fmt.Errorf("%w (another text, or an exec); use a new key for new work (`atelier sessions keys %s` lists them)", err, id))
}

// startIfCreated starts a session that has not started yet.
func startIfCreated(t *target) error {
	rec, err := t.api.Session(t.id)
	if err != nil || rec.Status != sessions.Created {
		return err
	}
	return t.api.Start(t.id)
}

// repeated reports a send whose key the session already has; nothing was
// sent. A done key prints the result it recorded, and with --wait exits as
// the first --wait did. A queued or started key names its item, and with
// --wait follows the session to its next stop, then reports the key's
// result. An uncertain key needs the operator. stay follows the session
// (in-process, or on the host's stream) with --wait.
func (s *streams) repeated(t *target, in sendInput, k sessions.KeyRecord, w *waitFlags,
	stay func(out *printer, atStop func(error) error) error) error {
	out := newPrinter(s, w.json)
	switch k.State {
	case sessions.KeyDone:
		return s.keyResult(t, in, k, w, out)
	case sessions.KeyQueued, sessions.KeyStarted:
	default:
		return uncertainKey(t.id, k)
	}
	line := fmt.Sprintf("%s %s: key %s is already %s (%s); nothing was sent again", in.verb(), t.id, k.Key, k.State, keyItem(k))
	if !w.wait {
		fmt.Fprintln(s.out, line)
		return nil
	}
	// The key's result is printed at the end, as for a done key: its
	// turn's text is not streamed on the way.
	out.quiet = true
	out.notice(t.id, line)
	if err := startIfCreated(t); err != nil {
		return sessionErr(err)
	}
	atStop := func(stop error) error {
		cur, ok, err := t.api.KeyResult(t.id, k.Key)
		switch {
		case err != nil:
			return sessionErr(err)
		case !ok:
			return withCode(ExitFailed, fmt.Errorf("key %s of session %s was forgotten while this command waited", k.Key, t.id))
		case cur.State == sessions.KeyDone:
			return s.keyResult(t, in, cur, w, out)
		case cur.State == sessions.KeyUncertain:
			return uncertainKey(t.id, cur)
		}
		// The session stopped without a result for the key: its item did
		// not run (a question on an earlier turn, a stop limit, the end of
		// the session), or another process ran it and this one has not
		// seen its result.
		out.notice(t.id, fmt.Sprintf("key %s is still %s (%s) as far as this process can see; `atelier sessions keys %s` shows where it stands",
			k.Key, cur.State, keyItem(cur), t.id))
		if stop == nil {
			return withCode(ExitNeedsYou, fmt.Errorf("session %s stopped without a result for key %s", t.id, k.Key))
		}
		return stop
	}
	rec, err := t.api.Session(t.id)
	if err != nil {
		return sessionErr(err)
	}
	if code, stop := stopCode(rec); stop {
		// Already at a stop: no event is coming to say so.
		return atStop(exitFor(code, rec))
	}
	return stay(out, atStop)
}

// keyResult prints the result a done key recorded. With --wait, the exit
// code is the one its turn's stop gave the first --wait.
func (s *streams) keyResult(t *target, in sendInput, k sessions.KeyRecord, w *waitFlags, out *printer) error {
	if len(k.Result) == 0 {
		return withCode(ExitFailed, fmt.Errorf("key %s of session %s is done but recorded no result", k.Key, t.id))
	}
	var res core.PromptResult
	if err := json.Unmarshal(k.Result, &res); err != nil {
		return withCode(ExitFailed, fmt.Errorf("key %s of session %s: its recorded result is unreadable: %w", k.Key, t.id, err))
	}
	cur, err := t.api.Session(t.id)
	if err != nil {
		return sessionErr(err)
	}
	// The session as the key's turn left it.
	rec := sessions.Session{ID: t.id, Mode: cur.Mode, Status: res.Status, WaitReason: res.WaitReason,
		EndReason: res.EndReason, Error: res.Error}
	if res.Output != nil {
		out.outputOnly = true
	}
	out.keyResult(in.verb(), k, res, rec)
	out.finish()
	if !w.wait {
		if res.Output != nil {
			return out.output(t.id, *res.Output)
		}
		return nil
	}
	code, stop := stopCode(rec)
	if !stop {
		code = ExitNeedsYou
	}
	if in.output != nil || res.Output != nil {
		return (&outputWatch{got: res.Output}).finish(out, t.id, exitFor(code, rec))
	}
	return exitFor(code, rec)
}

// keyItem names what a queued or started key made.
func keyItem(k sessions.KeyRecord) string {
	switch {
	case k.State == sessions.KeyStarted && k.Turn > 0:
		return fmt.Sprintf("turn %d, item %s", k.Turn, k.Op)
	case k.State == sessions.KeyQueued:
		return "queue item " + k.Op
	}
	return "item " + k.Op
}

// uncertainKey is the error of a key whose operation may have run without
// its result being recorded.
func uncertainKey(id string, k sessions.KeyRecord) error {
	return withCode(ExitFailed, fmt.Errorf("key %s of session %s is %s: its work may have run, but its result was not recorded "+
		"(the process running it stopped in between); nothing was sent again. Check what it did (`atelier sessions show %s`), "+
		"then clear the key with `atelier sessions keys %s --forget %s`",
		k.Key, id, k.State, id, id, k.Key))
}
