package api

import (
	"net/http"

	"github.com/atelier-studio/atelier/api/client"
)

// routeConfig registers the configuration's route: what the host uses,
// which can differ from the files on disk once they changed, so `atelier
// config` can say what the host has not applied, and why.
func (s *Server) routeConfig() {
	s.handle("GET /v1/config", s.hostConfig)
}

// configOperations documents the configuration's route.
func configOperations() []operation {
	return []operation{
		{method: "GET", path: "/v1/config", summary: "The configuration the host uses, secrets masked: its files, when it loaded them, and what it has not applied of them", status: 200, resp: client.HostConfig{},
			problems: codes(client.CodeNotFound)},
	}
}

func (s *Server) hostConfig(w http.ResponseWriter, r *http.Request) error {
	if s.opts.Config == nil {
		writeProblem(w, newProblem(http.StatusNotFound, client.CodeNotFound, "this host does not report its configuration"))
		return nil
	}
	c := s.opts.Config()
	if c.Files == nil {
		c.Files = []client.ConfigFile{}
	}
	if c.Entries == nil {
		c.Entries = []client.ConfigEntry{}
	}
	if c.NotApplied == nil {
		c.NotApplied = []string{}
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}
