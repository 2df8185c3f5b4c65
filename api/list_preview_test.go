package api

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/engine"
)

// TestListCarriesTaskPreview: GET /v1/sessions carries each task's preview
// (engine.PreviewRunes characters and an ellipsis, task_truncated set),
// not the whole task, while GET /v1/sessions/{id} has all of it.
func TestListCarriesTaskPreview(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 20*time.Second)
	long := strings.Repeat("界", engine.MaxText/len("界"))
	big, err := r.c.Create(ctx, client.CreateRequest{Task: long, Title: "big"})
	if err != nil {
		t.Fatal(err)
	}
	small, err := r.c.Create(ctx, client.CreateRequest{Task: "a short task"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: r.transport()}).Get("http://atelier/v1/sessions")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 8<<10 {
		t.Errorf("the list of two sessions is %d bytes: it carries whole tasks", len(raw))
	}
	var list []map[string]any
	if err := json.Unmarshal(raw, &list); err != nil || len(list) != 2 {
		t.Fatalf("list: %v, %d entries", err, len(list))
	}
	byID := map[string]map[string]any{}
	for _, e := range list {
		byID[e["id"].(string)] = e
	}
	want, _ := engine.TaskPreview(long)
	if e := byID[big.ID]; e["instructions"] != want || e["task_truncated"] != true || e["title"] != "big" {
		t.Errorf("the long task's entry: title %v, truncated %v, %d bytes of task", e["title"], e["task_truncated"], len(e["instructions"].(string)))
	}
	if e := byID[small.ID]; e["instructions"] != "a short task" || e["task_truncated"] != nil {
		t.Errorf("the short task's entry: %v", e)
	}
	whole, err := r.c.Session(ctx, big.ID)
	if err != nil || whole.Instructions != long {
		t.Errorf("a session's own record: %d bytes of task, %v; want all %d", len(whole.Instructions), err, len(long))
	}
}
