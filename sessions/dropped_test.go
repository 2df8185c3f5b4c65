package sessions

import (
	"testing"
)

// TestDroppedMessageLeavesTheTranscript: a message whose last revision is
// a drop is read by neither Messages nor MessagesTail, and the transcript
// still counts its id, so the next message's id is past it.
func TestDroppedMessageLeavesTheTranscript(t *testing.T) {
	s := newStore(t)
	rec := newSession(t, s)
	l := s.Log(rec.ID)
	for _, m := range []Message{
		{ID: "m00001", Rev: 1, Role: User, Parts: []Part{{Type: TextPart, Text: "go"}}, Complete: true},
		{ID: "m00002", Rev: 1, Role: Assistant},
		{ID: "m00002", Rev: 2, Role: Assistant, Dropped: true},
	} {
		if err := l.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	tr, rep, err := l.Transcript()
	if err != nil || len(rep) != 0 {
		t.Fatalf("Transcript: %v, repairs %+v", err, rep)
	}
	if len(tr.Messages) != 1 || tr.Messages[0].ID != "m00001" || tr.IDs != 2 {
		t.Fatalf("Transcript: %d ids, messages %+v; want 2 ids and m00001 alone", tr.IDs, tr.Messages)
	}
	if msgs, _, err := l.Messages(); err != nil || len(msgs) != 1 || msgs[0].ID != "m00001" {
		t.Fatalf("Messages: %+v, %v", msgs, err)
	}
	tail, more, err := l.MessagesTail(2)
	if err != nil || len(tail) != 1 || tail[0].ID != "m00001" || more {
		t.Fatalf("MessagesTail(2): %+v, more %v, %v", tail, more, err)
	}
}
