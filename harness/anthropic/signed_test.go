package anthropic

import (
	"context"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

// signer records what an emitter that keeps signed thinking is given.
type signer struct {
	modeltest.Recorder
	sigs, redacted []string
}

func (s *signer) SignReasoning(sig string)   { s.sigs = append(s.sigs, sig) }
func (s *signer) RedactedReasoning(d string) { s.redacted = append(s.redacted, d) }

var _ harness.Signer = (*signer)(nil)

// TestSignedThinkingSurvivesRestart: the stream hands the thinking's
// signature to an emitter that keeps it, and a Model that never saw step 1
// (another process, after a restart) sends that thinking back from the
// transcript instead of turning thinking off.
func TestSignedThinkingSurvivesRestart(t *testing.T) {
	first := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "anthropic-messages.sse")))
	rec := &signer{}
	res, err := newModel(t, first, 2048).Step(context.Background(), request(userMsg(1, "list")), rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.sigs) != 1 || rec.sigs[0] != "EqQBCkYIBxgCKkDmockSignatureAAAAbase64==" {
		t.Fatalf("signatures handed over: %q", rec.sigs)
	}
	msg := playEngine(&rec.Recorder, res, "README.md", sessions.ToolDone)
	msg.Parts[0].Signature = rec.sigs[0] // as the engine keeps it
	history := []sessions.Message{userMsg(1, "list"), msg}

	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "anthropic-messages-final-text.sse")))
	res2, rec2, err := step(t, newModel(t, srv, 2048), request(history...))
	if err != nil || res2.Stop != harness.StopEnd {
		t.Fatalf("%+v %v", res2, err)
	}
	if n := rec2.Notices(); len(n) != 0 {
		t.Fatalf("notices %q: thinking was turned off", n)
	}
	body := srv.Requests()[0].JSON(t)
	if get(t, body, "thinking", "type") != "enabled" {
		t.Fatalf("thinking %v", body["thinking"])
	}
	raw := string(srv.Requests()[0].Body)
	if !strings.Contains(raw, `"signature":"EqQBCkYIBxgCKkDmockSignatureAAAAbase64=="`) {
		t.Fatalf("the signed thinking was not sent back: %s", raw)
	}
}
