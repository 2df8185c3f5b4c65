package host

import (
	"encoding/json"
	"net/http"
)

// healthHandler is the API a host serves when it is given none: GET
// /v1/health answers with the host's record.
func healthHandler(rec Record) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "pid": rec.PID, "version": rec.Version}) // the client went away: nothing to do
	})
	return mux
}
