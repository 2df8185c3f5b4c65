package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/files"
)

// The change stream is how a studio on another machine keeps its file tree
// and open editors live: the host watches the workspace for the stream's
// life (a watcher of its own per stream, over the engine's workspace, so
// the changes its sessions make carry their session) and sends each batch
// as it comes. It is not part of GET /v1/events, so a client that does not
// show files pays nothing: the engine's own watcher keeps only the change
// marks (GET /v1/marks, the stream's marks events), not every change.

// changesOperation documents the change stream in the OpenAPI document.
func changesOperation() operation {
	return operation{method: "GET", path: "/v1/instances/{instance}/files/changes",
		summary: "Server-Sent Events: each batch of changes to the workspace's files (event: changes, data: a JSON array), as the host's watcher sees them",
		status:  200, sse: []any{[]client.WorkspaceChange{}}}
}

// fileChanges serves the change stream until the client goes away or the
// server closes.
func (s *Server) fileChanges(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	wt, err := files.NewWatcher(ws, files.WatcherOptions{})
	if err != nil {
		return fmt.Errorf("watch the workspace: %w", err)
	}
	defer func() { _ = wt.Close() }() // a watcher that fails to close has nothing left to send
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := &stream{s: s, w: w, rc: http.NewResponseController(w)}
	// The first comment tells the client the watch is in place: a change
	// made after it is on the stream.
	if st.write([]byte(": watching\n\n")) != nil || st.flush() != nil {
		return nil // the client went away; the status is sent
	}
	beat := time.NewTicker(s.opts.Heartbeat)
	defer beat.Stop()
	for {
		var msg []byte
		select {
		case <-r.Context().Done():
			return nil
		case <-s.done:
			return nil
		case <-beat.C:
			msg = []byte(": ping\n\n")
		case batch, ok := <-wt.Events():
			if !ok {
				return nil
			}
			b, err := json.Marshal(wireBatch(batch))
			if err != nil {
				return nil // the status is sent: the stream just ends
			}
			msg = fmt.Appendf(nil, "event: %s\ndata: %s\n\n", client.KindChanges, b)
		}
		if st.write(msg) != nil || st.flush() != nil {
			return nil
		}
	}
}

// wireBatch is a watcher batch as the API sends it.
func wireBatch(batch []files.Change) []client.WorkspaceChange {
	out := make([]client.WorkspaceChange, len(batch))
	for i, c := range batch {
		out[i] = client.WorkspaceChange{Kind: string(c.Kind), Path: c.Path, OldPath: c.OldPath, By: c.By, Time: c.Time,
			IsDir: c.IsDir, Size: c.Size, Message: c.Message}
	}
	return out
}
