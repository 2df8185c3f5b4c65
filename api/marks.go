package api

import (
	"net/http"

	"github.com/atelier-studio/atelier/api/client"
)

// The change marks are the host's (core/marks.go): one set for the
// workspace, what every studio's file tree marks A, M or D. The snapshot
// of GET /v1/events carries them and its "marks" events replace them; this
// route reads them alone, for a client that does not follow the stream.

// routeMarks registers the change marks' route (see marksOperations).
func (s *Server) routeMarks() {
	s.handle("GET /v1/marks", s.marks)
}

// marksOperations documents the change marks' route.
func marksOperations() []operation {
	return []operation{
		{method: "GET", path: "/v1/marks", summary: "The workspace's change marks: each path created, changed or deleted since the last turn started, with who changed it, sorted by path", status: 200, resp: client.Marks{}},
	}
}

func (s *Server) marks(w http.ResponseWriter, _ *http.Request) error {
	out := client.Marks{Marks: s.eng.ChangeMarks()}
	if out.Marks == nil {
		out.Marks = []client.ChangeMark{}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
