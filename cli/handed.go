package cli

import (
	"sync"

	"github.com/atelier-studio/atelier/config"
)

// handedEnv returns what this process hands workspace's engine host for a
// session of an agent, with each create and send: the variables of its own
// environment that the agent reads (agents.handed). A host started from
// another shell, or long before, then runs the agent with the key
// exported here, as an in-process engine would. The configuration is read
// on first use; one that cannot be read hands nothing, and the host, which
// reads it too, reports what is wrong.
func (s *streams) handedEnv(workspace string) func(agent string) map[string]string {
	var once sync.Once
	var ag *agents
	return func(agent string) map[string]string {
		once.Do(func() {
			dir, err := workspaceDir(workspace)
			if err != nil {
				return
			}
			cfg, err := config.Load(s.loadOptions(dir))
			if err != nil {
				return
			}
			ag = newAgents(cfg, s.env.getenv)
		})
		if ag == nil {
			return nil
		}
		return ag.handed(agent, s.env.list())
	}
}
