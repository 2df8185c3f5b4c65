package cli

import (
	"context"
	"errors"
	"io"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// runOnHost is `atelier run` when the workspace's engine host runs: the
// host creates and runs the session, and this command follows it on the
// host's event stream, answering what --approve allows, as the in-process
// run does (same output, same exit codes). Two engines never run one
// workspace's sessions, so twenty runs at once are twenty clients of one
// engine, not twenty engines claiming sessions.
//
// The stream is opened on the whole workspace before the session is
// created, so not one event of its first turn is missed. It and the API
// calls outlive an interrupt: Ctrl-C cancels the session through the host
// and waits for its end, as the in-process run does; a second interrupt
// exits at once (armInterrupts), leaving the session to the host.
func (s *streams) runOnHost(ctx context.Context, c *client.Client, o *runOptions, prompt string) (err error) {
	defer c.CloseIdle()
	dir, req, err := s.hostCreateRequest(o.workspace, o, prompt)
	if err != nil {
		return err
	}
	if err := s.checkCreateCopy(ctx, c, req, o.yes); err != nil {
		return err
	}
	req.AutoStart = true
	bg := context.WithoutCancel(ctx)
	sctx, stop := context.WithCancel(bg)
	defer stop()
	stream, snap, err := openStream(ctx, sctx, c, "")
	if err != nil {
		return err
	}
	api := s.newRemoteAPI(bg, c, folderOr(dir, o.workspace))
	create := func() (string, error) {
		rec, err := c.Create(bg, req)
		if err != nil {
			err = remoteErr(err)
			if errors.Is(err, core.ErrUnknownAgent) {
				return "", usageErr("%v (see `atelier agents`)", err)
			}
			return "", sessionErr(err)
		}
		return rec.ID, nil
	}
	var id string
	var replay bool
	if dir == "" {
		// Another machine's engine keeps the key: a create with a key it
		// knows answers the session it made then, which was in the
		// snapshot taken before this create.
		id, err = create()
		replay = err == nil && req.Key != "" && inSnapshot(snap, id)
	} else {
		id, replay, err = createKeyed(dir, req.Key, create, func(id string) error {
			_, err := api.Session(id)
			return err
		})
	}
	if err != nil {
		return err
	}
	rec, err := api.Session(id)
	if err != nil {
		return sessionErr(err)
	}
	h := &hostWait{c: c, t: &target{api: api, id: id}, stream: stream, snap: snap, stop: stop}
	out := newPrinter(s, o.json)
	fo := followOptions{approve: o.approve, timeout: o.timeout, cancelOnInterrupt: true}
	if o.schema != nil {
		out.outputOnly = true
		fo.output = &outputWatch{} // the task's
	}
	if !replay {
		out.created(rec)
		return remoteFollow(ctx, h, nil, fo, out, s)
	}
	msgs, err := hostTranscript(bg, c, id)
	if err != nil {
		return err
	}
	out.replayed(rec, msgs)
	if code, stopped := stopCode(rec); stopped {
		if fo.output != nil {
			fo.output.see(rec)
			return fo.output.finish(out, id, exitFor(code, rec))
		}
		return exitFor(code, rec)
	}
	return remoteFollow(ctx, h, openOf(snap, id), fo, out, s)
}

// folderOr is dir, or the workspace flag when there is no folder here
// (another machine's engine).
func folderOr(dir, flag string) string {
	if dir != "" {
		return dir
	}
	return flag
}

// inSnapshot reports whether the snapshot knew session id.
func inSnapshot(snap client.Snapshot, id string) bool {
	for _, rec := range snap.Sessions {
		if rec.ID == id {
			return true
		}
	}
	return false
}

// hostCreateRequest reads the workspace's configuration (its notices were
// printed when the host was found) and turns the flags into the host's
// create request, with the agent's defaults filled in as in-process. It
// returns the workspace's folder too.
func (s *streams) hostCreateRequest(workspace string, o *runOptions, prompt string) (string, client.CreateRequest, error) {
	if s.engineURL() != "" {
		// Another machine's engine: its configuration fills in what the
		// flags leave out (the default agent, the agent's execution and
		// image), and there is no folder here.
		// The default access goes unsaid: a TCP host refuses a create that
		// chooses a policy unless it allows settings.
		access := o.access
		if access == string(sessions.ReadWrite) {
			access = ""
		}
		return "", client.CreateRequest{Agent: o.agent, Title: o.title, Instructions: prompt, Mode: o.mode,
			Access: access, Execution: o.exec, Image: o.image, Key: o.key, Env: s.handedEnv(workspace)(o.agent),
			OutputSchema: o.schema, Isolation: o.isolation, Instance: o.instance}, nil
	}
	dir, err := workspaceDir(workspace)
	if err != nil {
		return "", client.CreateRequest{}, err
	}
	cfg, err := s.loadConfig(dir, io.Discard)
	if err != nil {
		return "", client.CreateRequest{}, err
	}
	co, err := o.createFrom(cfg, prompt)
	if err != nil {
		return "", client.CreateRequest{}, err
	}
	return dir, client.CreateRequest{Agent: co.Agent, Title: co.Title, Instructions: co.Instructions,
		Mode: string(co.Mode), Access: string(co.Access), Execution: co.Execution, Image: co.Image, Key: co.Key,
		Env: newAgents(cfg, s.env.getenv).handed(co.Agent, s.env.list()), OutputSchema: co.OutputSchema,
		Isolation: co.Isolation, Instance: co.Instance}, nil
}

// hostTranscript reads a session's whole transcript from the host, oldest
// first, a page at a time.
func hostTranscript(ctx context.Context, c *client.Client, id string) ([]sessions.Message, error) {
	var pages [][]sessions.Message
	before := ""
	for {
		page, err := c.Messages(ctx, id, 1000, before)
		if err != nil {
			return nil, sessionErr(remoteErr(err))
		}
		pages = append(pages, page.Messages)
		if !page.More || len(page.Messages) == 0 {
			break
		}
		before = page.Messages[0].ID
	}
	var msgs []sessions.Message
	for i := len(pages) - 1; i >= 0; i-- {
		msgs = append(msgs, pages[i]...)
	}
	return msgs, nil
}
