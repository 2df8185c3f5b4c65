package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
)

func TestRetryOverloadThenSuccess(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.JSONError(529, `{"error":{"message":"Overloaded","type":"overloaded_error"}}`),
		modeltest.Reply{Status: 429, Body: []byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`),
			Header: map[string]string{"Content-Type": "application/json", "Retry-After-Ms": "30"}},
		modeltest.SSE(modeltest.Fixture(t, "openai-chat-completions-text.sse")),
	)
	res, rec, err := step(t, newModel(t, srv, ChatCompletions), request(userMsg(1, "hi")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != harness.StopEnd || rec.Joined("text") != "The directory contains `README.md` and `main.go`." {
		t.Errorf("result %+v text %q", res, rec.Joined("text"))
	}
	n := rec.Notices()
	if len(n) != 2 || !strings.HasPrefix(n[0], "retrying in ") || !strings.HasSuffix(n[0], ": overloaded") || n[1] != "retrying in 30ms: rate limited" {
		t.Errorf("notices = %q", n)
	}
	if len(srv.Requests()) != 3 {
		t.Errorf("%d requests, want 3", len(srv.Requests()))
	}
}

func TestRetryGivesUp(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.JSONError(503, `{"error":{"message":"busy"}}`),
		modeltest.JSONError(503, `{"error":{"message":"busy"}}`),
		modeltest.JSONError(503, `{"error":{"message":"still busy"}}`),
	)
	_, rec, err := step(t, newModel(t, srv, ChatCompletions), request(userMsg(1, "hi")))
	if !errors.Is(err, ErrOverloaded) || !strings.Contains(err.Error(), "gave up after 3 attempts") || !strings.Contains(err.Error(), "still busy") {
		t.Fatalf("err = %v", err)
	}
	if len(rec.Notices()) != 2 {
		t.Errorf("notices = %q", rec.Notices())
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Reply{Status: 429, Body: []byte(`{"error":{"message":"quota"}}`), Header: map[string]string{"Retry-After": "3600"}})
	_, rec, err := step(t, newModel(t, srv, ChatCompletions), request(userMsg(1, "hi")))
	if !errors.Is(err, ErrRateLimited) || !strings.Contains(err.Error(), "1h0m0s") {
		t.Fatalf("err = %v", err)
	}
	if len(rec.Notices()) != 0 {
		t.Errorf("notices = %q", rec.Notices())
	}
}

func TestMidStreamRateLimit(t *testing.T) {
	failing := chatSSE(textChunk("Hel"), `{"error":{"message":"Rate limit reached","type":"rate_limit_error","code":429}}`)
	t.Run("engine can rewind", func(t *testing.T) {
		srv := modeltest.NewServer(t, modeltest.SSE(failing), modeltest.SSE(chatSSE(textChunk("Hello"), stopChunk)))
		rec := &modeltest.Rewinder{}
		res, err := newModel(t, srv, ChatCompletions).Step(context.Background(), request(userMsg(1, "hi")), rec)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Rewinds != 1 || rec.Joined("text") != "Hello" || res.Stop != harness.StopEnd {
			t.Errorf("rewinds %d text %q stop %s", rec.Rewinds, rec.Joined("text"), res.Stop)
		}
		if n := rec.Notices(); len(n) != 1 || !strings.HasSuffix(n[0], ": rate limited") {
			t.Errorf("notices = %q", n)
		}
	})
	t.Run("engine cannot rewind", func(t *testing.T) {
		srv := modeltest.NewServer(t, modeltest.SSE(failing))
		_, rec, err := step(t, newModel(t, srv, ChatCompletions), request(userMsg(1, "hi")))
		if !errors.Is(err, ErrRateLimited) || !strings.Contains(err.Error(), "not retried") {
			t.Fatalf("err = %v", err)
		}
		if len(rec.Notices()) != 0 {
			t.Errorf("notices = %q", rec.Notices())
		}
	})
}

func TestAuthError(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		srv := modeltest.NewServer(t, modeltest.JSONError(status, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
		_, rec, err := step(t, newModel(t, srv, ChatCompletions), request(userMsg(1, "hi")))
		if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "Incorrect API key provided") {
			t.Fatalf("%d: err = %v", status, err)
		}
		if strings.Contains(err.Error(), "sk-test") {
			t.Errorf("the key leaked into the error: %v", err)
		}
		if len(rec.Notices()) != 0 || len(srv.Requests()) != 1 {
			t.Errorf("%d: auth error retried", status)
		}
	}
}

// cancelOnText cancels the step's context when the first text arrives.
type cancelOnText struct {
	modeltest.Recorder
	cancel context.CancelFunc
}

func (c *cancelOnText) Text(d string) { c.Recorder.Text(d); c.cancel() }

func TestCancelMidStream(t *testing.T) {
	for _, api := range []API{ChatCompletions, Responses} {
		t.Run(string(api), func(t *testing.T) {
			first := chatSSE(textChunk("Hello"))[:len(chatSSE(textChunk("Hello")))-len("data: [DONE]\n\n")]
			if api == Responses {
				first = []byte("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hello\"}\n\n")
			}
			// The server sends one delta, then stalls forever.
			srv := modeltest.NewServer(t, modeltest.Reply{Chunks: [][]byte{first}, Hang: true})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rec := &cancelOnText{cancel: cancel}
			done := make(chan error, 1)
			go func() {
				_, err := newModel(t, srv, api).Step(ctx, request(userMsg(1, "hi")), rec)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("err = %v, want context.Canceled", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Step did not return after its context was cancelled")
			}
		})
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Reply{Status: 503, Body: []byte(`{}`), Header: map[string]string{"Retry-After": "30"}})
	m := newModel(t, srv, ChatCompletions)
	m.retry.MaxDelay = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	rec := &noticeCancel{cancel: cancel}
	_, err := m.Step(ctx, request(userMsg(1, "hi")), rec)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

type noticeCancel struct {
	modeltest.Recorder
	cancel context.CancelFunc
}

func (n *noticeCancel) Notice(s string) { n.Recorder.Notice(s); n.cancel() }

func TestNewRejectsBadSettings(t *testing.T) {
	cases := []Settings{
		{API: "completions"},
		{BaseURL: "127.0.0.1:11434/v1"},
		{BaseURL: "ftp://example.com"},
		{MaxTokens: -1},
		{ReasoningEffort: "extreme"},
	}
	for _, s := range cases {
		if _, err := New(s); err == nil {
			t.Errorf("New(%+v) accepted bad settings", s)
		}
	}
	m, err := New(Settings{})
	if err != nil || m.s.API != ChatCompletions || m.s.BaseURL != DefaultBaseURL {
		t.Errorf("defaults: %+v %v", m, err)
	}
	if _, _, err := step(t, m, request(userMsg(1, "hi"))); err == nil || !strings.Contains(err.Error(), "no model") {
		t.Errorf("step without a model: %v", err)
	}
}
