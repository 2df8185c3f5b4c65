package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
)

// giveUpCLI is the CLI's side of a conn for TestCallKeepsArrivedAnswer.
// Within the Write of a request, before call can wait for the answer, it
// answers (unless silent), makes sure the conn has routed that answer,
// then ends the wait another way: it cancels the caller's ctx, or ends
// the connection. call then finds both ready.
type giveUpCLI struct {
	out    *io.PipeWriter // the conn's input
	c      *conn
	cancel context.CancelFunc
	hangUp bool // end the connection rather than cancel
	silent bool // give no answer
}

func (g *giveUpCLI) Write(b []byte) (int, error) {
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		return 0, err
	}
	if !g.silent {
		ans := fmt.Sprintf(`{"id":%s,"result":{"turn":{"id":"turn-1"}}}`+"\n", m.ID)
		// The reader takes in a line only once it has routed the ones
		// before: when the notification's write returns, the answer is
		// with call.
		for _, line := range []string{ans, `{"method":"thread/status/changed","params":{}}` + "\n"} {
			if _, err := io.WriteString(g.out, line); err != nil {
				return 0, err
			}
		}
	}
	if g.hangUp {
		_ = g.out.Close() // a pipe's Close never fails
		<-g.c.done
	} else {
		g.cancel()
	}
	return len(b), nil
}

// TestCallKeepsArrivedAnswer: an answer that has arrived is the call's
// outcome even when its ctx ends, or the connection does, before the
// caller looks (a cancelled turn whose turn/start was answered is then
// interrupted by its id, not killed as one never started); with no answer
// the call fails with the reason it stopped waiting.
func TestCallKeepsArrivedAnswer(t *testing.T) {
	for _, tc := range []struct {
		name           string
		hangUp, silent bool
		want           error // nil: the answer
	}{
		{name: "ctx cancelled"},
		{name: "connection ended", hangUp: true},
		{name: "ctx cancelled, no answer", silent: true, want: context.Canceled},
		{name: "connection ended, no answer", hangUp: true, silent: true, want: io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// call picks at random among ready cases: enough rounds that
			// picking the wrong one even once in a while shows.
			for range 200 {
				r, w := io.Pipe()
				ctx, cancel := context.WithCancel(context.Background())
				g := &giveUpCLI{out: w, cancel: cancel, hangUp: tc.hangUp, silent: tc.silent}
				g.c = newConn(r, g)
				var tr turnResponse
				err := g.c.call(ctx, "turn/start", turnStartParams{ThreadID: "t"}, &tr)
				cancel()
				_ = w.Close() // a pipe's Close never fails
				<-g.c.done
				if tc.want == nil && (err != nil || tr.Turn.ID != "turn-1") {
					t.Fatalf("call: %v, turn %q: the answer that had arrived was dropped", err, tr.Turn.ID)
				}
				if tc.want != nil && !errors.Is(err, tc.want) {
					t.Fatalf("call: %v, want %v", err, tc.want)
				}
			}
		})
	}
}
