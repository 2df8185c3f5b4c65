package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/tui/workspaces"
)

// A session created with isolation copy makes a copy of the workspace:
// when it would be large (over [instances] warn_size), the studio says
// how large and asks first, as the command line does.

type (
	// copyEstimateMsg is what a copy would hold, measured before a
	// create that makes one.
	copyEstimateMsg struct {
		o   core.CreateOptions
		est client.CopyEstimate
		err error
	}
)

// estimateTimeout bounds the measuring of a copy (a walk of the folder).
const estimateTimeout = time.Minute

// createChecked creates a session, measuring first what its copy
// instance would hold when it makes one.
func (ins *instancesPart) createChecked(o core.CreateOptions) tea.Cmd {
	if o.Isolation != core.IsolationCopy || o.Instance != "" {
		return ins.create(o)
	}
	eng := ins.eng
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), estimateTimeout)
		defer cancel()
		est, err := eng.CopyEstimate(ctx)
		return copyEstimateMsg{o: o, est: est, err: err}
	}
}

// copyEstimated creates the session when its copy is small enough, and
// asks when it is not. A copy that cannot be measured is not made.
func (ins *instancesPart) copyEstimated(msg copyEstimateMsg) tea.Cmd {
	if msg.err != nil {
		ins.status.set("no session created: measuring the copy failed: "+errorText(msg.err), true)
		return nil
	}
	if msg.est.Size.Bytes <= msg.est.WarnSize {
		return ins.create(msg.o)
	}
	ins.dlg.confirm("A large copy", fmt.Sprintf("A copy of the workspace for this session would hold %d files, %s "+
		"(over [instances] warn_size, %s). A worktree shares git's objects instead. Make the copy?",
		msg.est.Size.Files, workspaces.Bytes(msg.est.Size.Bytes), workspaces.Bytes(msg.est.WarnSize)),
		"make the copy", func() tea.Cmd { return ins.create(msg.o) })
	return nil
}
