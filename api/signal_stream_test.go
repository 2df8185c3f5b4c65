package api

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
)

// TestSignalOnTheStream: an event fired through POST /v1/signals/NAME goes
// out on /v1/events as a signal event carrying its name, id and data.
func TestSignalOnTheStream(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 20*time.Second)
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", r.sock)
	}}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://atelier/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }() // read only
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "event: snapshot") {
	}
	if _, err := r.c.Signal(ctx, "deploy-done", json.RawMessage(`{"version":7}`)); err != nil {
		t.Fatal(err)
	}
	kind := ""
	for sc.Scan() {
		line := sc.Text()
		if k, ok := strings.CutPrefix(line, "event: "); ok {
			kind = k
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || kind != string(core.EvSignal) {
			continue
		}
		var ev core.Event
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Signal == nil || ev.Signal.Name != "deploy-done" || ev.Signal.Data != `{"version":7}` || ev.Signal.ID == "" || ev.Text != "deploy-done" {
			t.Fatalf("signal event %s", data)
		}
		return
	}
	t.Fatalf("the stream ended without the signal: %v", sc.Err())
}
