package core

import (
	"errors"
	"testing"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestEditQueuedKeepsPlaceKeyAndSurvivesReopen: an edited prompt keeps its
// id, its place and its idempotency key, and the next engine on the
// workspace finds the new text.
func TestEditQueuedKeepsPlaceKeyAndSurvivesReopen(t *testing.T) {
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	id := r.create(CreateOptions{Agent: "a", Mode: sessions.Continuous}).ID
	for i, p := range []string{"alpha", "beta", "gamma"} {
		key := ""
		if i == 1 {
			key = "k-beta"
		}
		if _, err := r.e.As("").Send(id, p, key); err != nil {
			t.Fatal(err)
		}
	}
	queue, _ := r.e.Queue(id)
	beta := queue[1].ID
	if err := r.e.As("").EditQueued(id, beta, "beta, said better"); err != nil {
		t.Fatal(err)
	}
	r.until("the edited queue", func(ev Event) bool {
		return ev.Kind == EvQueue && ev.SessionID == id && len(ev.Queue) == 3 && ev.Queue[1].Text == "beta, said better"
	})
	if err := r.e.As("").EditQueued(id, beta, "  "); err == nil {
		t.Fatal("an empty edit was taken")
	}
	// A retry of the original send is a repeat of the edited item.
	rc, err := r.e.As("").Send(id, "beta", "k-beta")
	if err != nil || rc.Key == nil || rc.Key.Op != beta {
		t.Fatalf("the key's original send again: %+v %v", rc, err)
	}
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}

	e, err := Open(ws, Options{Agents: MapResolver{"a": &scripted.Model{}}, Passive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	queue, _ = e.Queue(id)
	if len(queue) != 3 {
		t.Fatalf("queue after reopen: %+v", queue)
	}
	want := []string{"alpha", "beta, said better", "gamma"}
	for i, c := range queue {
		if c.Text != want[i] {
			t.Fatalf("item %d after reopen: %q, want %q", i, c.Text, want[i])
		}
	}
	if queue[1].ID != beta || queue[1].Key != "k-beta" {
		t.Fatalf("the edited item lost its id or key: %+v", queue[1])
	}
	// A passive engine applies an edit itself (no engine runs the session).
	if err := e.As("").EditQueued(id, queue[2].ID, "gamma, passively"); err != nil {
		t.Fatal(err)
	}
	if queue, _ = e.Queue(id); queue[2].Text != "gamma, passively" {
		t.Fatalf("passive edit: %+v", queue[2])
	}
}

// TestEditQueuedRefusedOnceTaken: a prompt can be edited while it waits;
// the turn that takes it sends the edited text, and once taken it can no
// longer be edited.
func TestEditQueuedRefusedOnceTaken(t *testing.T) {
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{{Text: "first", Gate: g}, {Text: "second"}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "go"}).ID
	r.streaming(id)
	if _, err := r.e.As("").Send(id, "then this", "k1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.e.As("").SetModel(id, "other-model"); err != nil {
		t.Fatal(err)
	}
	queue, _ := r.e.Queue(id)
	if len(queue) != 2 {
		t.Fatalf("queue: %+v", queue)
	}
	if err := r.e.As("").EditQueued(id, queue[1].ID, "x"); !errors.Is(err, ErrNotEditable) {
		t.Fatalf("editing a model change: %v", err)
	}
	item := queue[0].ID
	if err := r.e.As("").EditQueued(id, item, "then that instead"); err != nil {
		t.Fatal(err)
	}
	close(g)
	r.until("turn 2", func(ev Event) bool { return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 2 })
	r.status(id, sessions.Waiting)
	msgs, _, err := r.e.Transcript(id)
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, msg := range msgs {
		if msg.Role == sessions.User {
			users = append(users, msg.Text())
		}
	}
	if len(users) == 0 || users[len(users)-1] != "then that instead" {
		t.Fatalf("the second turn's prompt: %q", users)
	}
	if err := r.e.As("").EditQueued(id, item, "too late"); !errors.Is(err, ErrNotQueued) {
		t.Fatalf("editing a taken item: %v", err)
	}
	if k, ok, err := r.e.KeyResult(id, "k1"); err != nil || !ok || k.Op != item {
		t.Fatalf("the key of the edited item: %+v %v %v", k, ok, err)
	}
}
