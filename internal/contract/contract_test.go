package contract

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// row is one behaviour of the surface: it drives e (an engine of its own
// on workspace ws) and says what it saw, in words every side must share.
// It fails the test itself where a side breaks the behaviour outright.
type row struct {
	name string
	run  func(t *testing.T, e attach.Engine, ws string) string
}

// errWord says what an error is in the surface's terms: nil, the problem
// code the engine's one table (engine.ProblemOf) gives the error, and its
// message. In process the code comes from the engine's own error; through
// a host, from the error the client rebuilt from the code the server sent,
// so a code lost or changed on the way differs. A refused transition is
// the same refusal whether it is the engine's typed error or the host's
// code.
func errWord(err error) string {
	if err == nil {
		return "ok"
	}
	code := "untyped"
	if p, ok := engine.ProblemOf(err); ok {
		code = p.Code
	}
	if errors.Is(err, attach.ErrTransitionRefused) {
		code = engine.CodeTransitionRefused
	}
	msg := err.Error()
	var p *client.Problem
	if errors.As(err, &p) {
		// The client says the code after the engine's message; the
		// message is the detail.
		msg = p.Detail
	}
	return code + ": " + msg
}

func receiptWord(rc core.Receipt, err error) string {
	if err != nil {
		return errWord(err)
	}
	id := "no id"
	if rc.ID != "" {
		id = "an id"
	}
	return fmt.Sprintf("receipt (%s): %s", id, rc.When)
}

func create(t *testing.T, e attach.Engine, o core.CreateOptions) sessions.Session {
	t.Helper()
	if o.Instructions == "" {
		o.Instructions = "a task"
	}
	s, err := e.Create(o)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return s
}

const unknownID = "zzzzzzzz"

// more is what both sides offer beyond attach.Engine: the command line's
// controls (core.Engine in process, attach.Controls through a host).
type more interface {
	Session(id string) (sessions.Session, error)
	SetApproval(id, policy string) (core.Receipt, error)
	SetModel(id, model string) (core.Receipt, error)
	Queue(id string) ([]sessions.Control, error)
	Context(id string) (core.AgentContext, error)
}

func moreOf(t *testing.T, e attach.Engine) more {
	t.Helper()
	m, ok := e.(more)
	if !ok {
		t.Fatalf("%T lacks the command line's controls", e)
	}
	return m
}

// settle drives session id until it is no longer in a turn, answering
// what it asks as the operator would (allow once; a question's first
// choice), and says where it came to rest and what it asked.
func settle(t *testing.T, e attach.Engine, id string) (sessions.Session, []string) {
	t.Helper()
	var asked []string
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, err := moreOf(t, e).Session(id)
		if err != nil {
			t.Fatal(err)
		}
		if s.Status == sessions.Ended || s.Status == sessions.Waiting {
			return s, asked
		}
		for _, it := range openOf(t, e) {
			if it.SessionID != id || it.Kind == sessions.Park {
				// The demo's park is a timer: whether a poll sees it open
				// is timing, so it is left to fire and not recorded.
				continue
			}
			a := core.Answer{Decision: sessions.AllowOnce}
			if it.Kind == sessions.Question {
				a = core.Answer{Text: it.Choices[0]}
			}
			if err := e.Answer(id, it.ID, a); err != nil {
				t.Fatalf("the operator's answer to %s %s: %v", it.Kind, it.Tool, err)
			}
			asked = append(asked, string(it.Kind)+" "+it.Tool)
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s stayed %s", id, s.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// openOf lists the open interactions: in process the snapshot holds them;
// a host lists them.
func openOf(t *testing.T, e attach.Engine) []core.OpenInteraction {
	t.Helper()
	if o, ok := e.(interface {
		OpenInteractions() ([]core.OpenInteraction, error)
	}); ok {
		its, err := o.OpenInteractions()
		if err != nil {
			t.Fatal(err)
		}
		return its
	}
	return e.Snapshot().Interactions
}

// sessionID matches a session's id, which differs from side to side.
var sessionID = regexp.MustCompile(`\b\d{12}[0-9a-f]{10}\b`)

var rows = []row{
	{"create answers the new session's record", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{Title: "contract", Approval: core.PolicyAsk, Access: sessions.ReadOnly})
		if s.ID == "" {
			t.Fatal("no id")
		}
		return fmt.Sprintf("%s %q approval %s access %s mode %s", s.Status, s.Title, s.Approval, s.Access, s.Mode)
	}},
	{"create with an unknown agent is refused", func(t *testing.T, e attach.Engine, _ string) string {
		_, err := e.Create(core.CreateOptions{Agent: "nosuch", Instructions: "t"})
		return errWord(err)
	}},
	{"closing an ENDED session is harmless", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{})
		if _, err := e.Cancel(s.ID); err != nil {
			t.Fatal(err)
		}
		rc, err := e.CloseSession(s.ID)
		if err != nil {
			t.Errorf("close of an ENDED session: %v", err)
		}
		return receiptWord(rc, err)
	}},
	{"a control of an unknown session", func(t *testing.T, e attach.Engine, _ string) string {
		_, err := e.Pause(unknownID)
		if !errors.Is(err, core.ErrUnknownSession) {
			t.Errorf("pause of an unknown session: %v", err)
		}
		return errWord(err)
	}},
	{"a resume of a session not started", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{})
		return receiptWord(e.Resume(s.ID))
	}},
	{"a send to a session not started is queued", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{Mode: sessions.Continuous})
		return receiptWord(e.Send(s.ID, "and then this"))
	}},
	{"a repeated send key answers with its record", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{Mode: sessions.Continuous})
		first, err := e.Send(s.ID, "once", "key-1")
		if err != nil {
			t.Fatal(err)
		}
		again, err := e.Send(s.ID, "once", "key-1")
		if err == nil && again.ID != first.ID {
			t.Errorf("a repeated key made new work: %s, then %s", first.ID, again.ID)
		}
		return receiptWord(again, err)
	}},
	{"the queue's edits", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{Mode: sessions.Continuous})
		a, err := e.Send(s.ID, "a")
		if err != nil {
			t.Fatal(err)
		}
		var words []string
		words = append(words, errWord(e.EditQueued(s.ID, a.ID, "a, edited")))
		words = append(words, errWord(e.MoveQueued(s.ID, a.ID, 0)))
		words = append(words, errWord(e.RemoveQueued(s.ID, a.ID)))
		words = append(words, errWord(e.RemoveQueued(s.ID, a.ID)))
		return strings.Join(words, "; ")
	}},
	{"an answer to an unknown interaction", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{})
		err := e.Answer(s.ID, strings.Repeat("a", 16), core.Answer{Decision: sessions.AllowOnce})
		if !errors.Is(err, core.ErrUnknownInteraction) {
			t.Errorf("the operator's answer was not the engine's to refuse: %v", err)
		}
		return errWord(err)
	}},
	{"the operator sets the approval policy", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{Mode: sessions.Continuous, AutoStart: true})
		settle(t, e, s.ID)
		rc, err := moreOf(t, e).SetApproval(s.ID, core.PolicyAuto)
		if err != nil {
			t.Errorf("the operator's policy change: %v", err)
		}
		return receiptWord(rc, err)
	}},
	{"grants and a revoke", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{})
		g, err := e.Grants(s.ID)
		return fmt.Sprintf("grants %v %s; revoke %s", g, errWord(err), errWord(e.Revoke(s.ID, "exec:make")))
	}},
	{"the operator saves .atelier.toml", func(t *testing.T, e attach.Engine, ws string) string {
		const body = "# the operator's\n"
		err := e.SaveFile(ctxFor(t), ".atelier.toml", []byte(body))
		if err != nil {
			t.Errorf("save .atelier.toml: %v", err)
		}
		got, rerr := os.ReadFile(filepath.Join(ws, ".atelier.toml"))
		return fmt.Sprintf("%s; the file holds %q (%v)", errWord(err), got, rerr)
	}},
	{"a save outside the workspace is refused", func(t *testing.T, e attach.Engine, _ string) string {
		err := e.SaveFile(ctxFor(t), "../escape.txt", []byte("x"))
		if err == nil {
			t.Error("a save outside the workspace went through")
		}
		return fmt.Sprintf("refused %v", err != nil)
	}},
	{"delete, then the session is unknown", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{})
		err := e.Delete(s.ID)
		_, after := e.Cancel(s.ID)
		return errWord(err) + "; then " + errWord(after)
	}},
	{"archive and unarchive", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{})
		return errWord(e.Archive(s.ID, true)) + "; " + errWord(e.Archive(s.ID, false)) + "; unknown " + errWord(e.Archive(unknownID, true))
	}},
	{"a session's record reads back", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{Title: "read back"})
		got, err := moreOf(t, e).Session(s.ID)
		_, unknown := moreOf(t, e).Session(unknownID)
		return fmt.Sprintf("%s %q %s; unknown %s", got.Status, got.Title, errWord(err), errWord(unknown))
	}},
	{"the operator answers a session's approvals and question", func(t *testing.T, e attach.Engine, ws string) string {
		s := create(t, e, core.CreateOptions{Approval: core.PolicyAsk})
		if err := e.Start(s.ID); err != nil {
			t.Fatal(err)
		}
		end, asked := settle(t, e, s.ID)
		if len(asked) == 0 {
			t.Error("the demo asked nothing")
		}
		msgs, _, err := e.Transcript(s.ID)
		note, nerr := os.ReadFile(filepath.Join(ws, harness.DemoFile))
		return fmt.Sprintf("asked %v; %s %s after %d turn(s); %d messages (%s); the note %d bytes (%v); start again: %s",
			asked, end.Status, end.EndReason, end.Turns, len(msgs), errWord(err), len(note), nerr, errWord(e.Start(s.ID)))
	}},
	{"a continuous session's controls between turns", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{Mode: sessions.Continuous, AutoStart: true})
		settle(t, e, s.ID)
		var words []string
		for _, c := range []func() (core.Receipt, error){
			func() (core.Receipt, error) { return e.Stop(s.ID) },
			func() (core.Receipt, error) { return e.Nudge(s.ID) },
			func() (core.Receipt, error) { return moreOf(t, e).SetModel(s.ID, "another") },
			func() (core.Receipt, error) { return e.Compact(s.ID) },
			func() (core.Receipt, error) { return e.Clear(s.ID) },
		} {
			words = append(words, receiptWord(c()))
		}
		return strings.Join(words, "; ")
	}},
	{"a steer and the queue", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{Mode: sessions.Continuous})
		steer := receiptWord(e.Steer(s.ID, "steer this way"))
		if _, err := e.Send(s.ID, "then this"); err != nil {
			t.Fatal(err)
		}
		q, err := moreOf(t, e).Queue(s.ID)
		var texts []string
		for _, c := range q {
			texts = append(texts, string(c.Kind)+" "+c.Text)
		}
		return fmt.Sprintf("steer %s; queue %q %s", steer, texts, errWord(err))
	}},
	{"a session's context", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{Instructions: "look around"})
		c, err := moreOf(t, e).Context(s.ID)
		return fmt.Sprintf("%s %s %q next %q tools %d %s", c.Agent, c.Kind, c.Instructions, c.Next, len(c.Tools), errWord(err))
	}},
	{"open interactions of a quiet workspace", func(t *testing.T, e attach.Engine, _ string) string {
		create(t, e, core.CreateOptions{})
		return fmt.Sprintf("%d open", len(openOf(t, e)))
	}},
	{"a fork copies the history into a new session", func(t *testing.T, e attach.Engine, _ string) string {
		s := create(t, e, core.CreateOptions{AutoStart: true})
		settle(t, e, s.ID)
		f, err := e.Fork(s.ID, "", "forked")
		if err != nil {
			return errWord(err)
		}
		msgs, _, terr := e.Transcript(f.ID)
		_, unknown := e.Fork(unknownID, "", "x")
		return fmt.Sprintf("%s %q %d messages %s; unknown %s", f.Status, f.Title, len(msgs), errWord(terr), errWord(unknown))
	}},
	{"the file pane's operations", func(t *testing.T, e attach.Engine, ws string) string {
		ctx := ctxFor(t)
		from := filepath.Join(t.TempDir(), "up.txt")
		if err := os.WriteFile(from, []byte("uploaded"), 0o644); err != nil {
			t.Fatal(err)
		}
		var words []string
		for _, op := range []attach.FileOp{
			{Kind: attach.OpCreate, Path: "a.txt"},
			{Kind: attach.OpCreate, Path: "a.txt"},
			{Kind: attach.OpMkdir, Path: "d/e"},
			{Kind: attach.OpRename, Path: "a.txt", To: "d/a.txt"},
			{Kind: attach.OpUpload, From: from, Path: "d/up.txt"},
			{Kind: attach.OpDelete, Path: "d/e"},
			{Kind: attach.OpRename, Path: "nope", To: "nope2"},
		} {
			_, err := e.FileOp(ctx, op)
			words = append(words, fmt.Sprintf("%s %s: refused %v", op.Kind, op.Path, err != nil))
		}
		var tree []string
		err := filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(ws, p)
			if d.IsDir() && (rel == ".state" || rel == ".git") {
				return filepath.SkipDir
			}
			tree = append(tree, rel)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		up, _ := os.ReadFile(filepath.Join(ws, "d", "up.txt")) // absent is seen in the words
		return fmt.Sprintf("%s; tree %v; upload %q", strings.Join(words, ", "), tree, up)
	}},
	{"the workspace's workflow runs and triggers", func(t *testing.T, e attach.Engine, _ string) string {
		runs, rerr := e.WorkflowRuns(ctxFor(t))
		trs, terr := e.Triggers(ctxFor(t))
		return fmt.Sprintf("%d runs %s; %d triggers %s", len(runs), errWord(rerr), len(trs), errWord(terr))
	}},
	{"the live view sees a new session", func(t *testing.T, e attach.Engine, _ string) string {
		_, feed := e.Subscribe()
		defer feed.Close()
		s := create(t, e, core.CreateOptions{Title: "seen"})
		deadline := time.Now().Add(20 * time.Second)
		for {
			for _, rec := range e.Snapshot().Sessions {
				if rec.ID == s.ID {
					return fmt.Sprintf("%q in the live view", rec.Title)
				}
			}
			select {
			case <-feed.Ready():
				for _, ev := range feed.Drain() {
					if ev.Kind == core.EvSession && ev.SessionID == s.ID {
						return fmt.Sprintf("%q in the live view", ev.Session.Title)
					}
				}
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatal("the live view never showed the session")
			}
		}
	}},
}

// TestContract runs every row on every side, each on a workspace of its
// own, and requires the sides to say the same.
func TestContract(t *testing.T) {
	seen := &routes{hit: map[string]bool{}}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			var said []saying
			for _, s := range sides {
				ws := t.TempDir()
				said = append(said, saying{s.name, ws, r.run(t, s.open(t, ws, seen), ws)})
			}
			sameOnEvery(t, said)
		})
	}
	for _, r := range append(wireRows, startRows...) {
		t.Run(r.name, func(t *testing.T) {
			var said []saying
			for _, s := range wireSides {
				ws := t.TempDir()
				w := s.open(t, ws, seen)
				run := r.client
				if w.c == nil {
					run = r.engine
				}
				said = append(said, saying{s.name, ws, run(t, w)})
			}
			sameOnEvery(t, said)
		})
	}
	t.Run("routes", func(t *testing.T) { checkRoutes(t, seen) })
}

// saying is what a row said on one side, on workspace ws.
type saying struct{ side, ws, text string }

// sameOnEvery requires every side to have said what the first did, once
// the workspace's path and the sessions' ids (which differ from side to
// side) are put aside.
func sameOnEvery(t *testing.T, said []saying) {
	t.Helper()
	norm := func(s saying) string {
		return sessionID.ReplaceAllString(strings.ReplaceAll(s.text, s.ws, "<ws>"), "<id>")
	}
	first := norm(said[0])
	t.Logf("%s", first)
	for _, s := range said[1:] {
		if got := norm(s); got != first {
			t.Errorf("the sides differ:\n  %-6s %s\n  %-6s %s", said[0].side, first, s.side, got)
		}
	}
}

// checkRoutes requires every route of the API to be reached by a row or
// listed in notYet; a listed route that a row now reaches must leave the
// list, so it only shrinks.
func checkRoutes(t *testing.T, seen *routes) {
	if len(seen.all) == 0 {
		t.Fatal("no route was recorded")
	}
	var missing, stale []string
	for _, p := range seen.all {
		switch {
		case !seen.hit[p] && !notYet[p]:
			missing = append(missing, p)
		case seen.hit[p] && notYet[p]:
			stale = append(stale, p)
		}
	}
	for p := range notYet {
		if !slices.Contains(seen.all, p) {
			stale = append(stale, p+" (no longer a route)")
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("routes no row of the contract reaches (add a row):\n  %s", strings.Join(missing, "\n  "))
	}
	if len(stale) > 0 {
		t.Errorf("routes listed as not yet covered that are (remove them from notYet):\n  %s", strings.Join(stale, "\n  "))
	}
	t.Logf("the contract reaches %d of the API's %d routes", len(seen.hit), len(seen.all))
}

// notYet are the API's routes no row reaches yet: none. It stays as the
// way to say so while a row is written, and only shrinks: a route a row
// reaches must leave it, and a new route needs a row.
var notYet = map[string]bool{}
