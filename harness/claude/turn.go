package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/procpool"
	"github.com/atelier-studio/atelier/sessions"
)

// Turn implements harness.Agent: it writes the input as one stream-json
// user message to the session's CLI (starting it, or resuming claude's
// session in a new process, when none runs) and streams what the CLI
// prints until the turn's result line.
func (a *Agent) Turn(ctx context.Context, req harness.TurnRequest, out harness.Emitter, host harness.Host) (harness.TurnResult, error) {
	if err := ctx.Err(); err != nil {
		return harness.TurnResult{}, err
	}
	input := req.Input
	if strings.TrimSpace(input) == "" {
		if req.Resume == "" {
			return harness.TurnResult{}, fmt.Errorf("claude turn: %w", ErrEmptyInput)
		}
		// A turn picked up after a restart: claude has the history.
		input = "Continue where you left off."
	}
	model := req.Model
	if model == "" {
		model = a.set.Model
	}
	s, err := a.session(req.SessionID)
	if err != nil {
		return harness.TurnResult{Resume: req.Resume}, err
	}
	s.turnMu.Lock()
	defer s.turnMu.Unlock()

	pr, err := a.ensureProc(s, req, model, out, host)
	if err != nil {
		return harness.TurnResult{Resume: s.resumeToken(req.Resume)}, err
	}
	res, err := a.newTurn(s, pr, out, host).run(ctx, input)
	var refused errResumeRefused
	if errors.As(err, &refused) {
		// claude could not load the session to resume (its state is gone):
		// say so and go on in a new one rather than fail forever.
		out.Notice(fmt.Sprintf("claude could not resume session %s: starting a new one (%s)", s.resumeToken(req.Resume), lastLine(refused.err)))
		s.mu.Lock()
		s.claudeID = ""
		s.mu.Unlock()
		if pr, err = a.ensureProc(s, harness.TurnRequest{Instructions: req.Instructions}, model, out, host); err != nil {
			return harness.TurnResult{}, err
		}
		res, err = a.newTurn(s, pr, out, host).run(ctx, input)
	}
	res.Resume = s.resumeToken(req.Resume)
	return res, err
}

func (a *Agent) newTurn(s *session, pr *proc, out harness.Emitter, host harness.Host) *turn {
	return &turn{a: a, s: s, pr: pr, d: newDecoder(out), out: out, host: host, ws: host.Workspace()}
}

// resumeToken is claude's session id if known, else the one we were given.
func (s *session) resumeToken(fallback string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claudeID != "" {
		return s.claudeID
	}
	return fallback
}

// ensureProc returns the session's running CLI, starting one if needed. A
// new process resumes claude's session when there is one; if claude
// cannot load it, the turn starts a fresh session and says so.
func (a *Agent) ensureProc(s *session, req harness.TurnRequest, model string, out harness.Emitter, host harness.Host) (*proc, error) {
	s.mu.Lock()
	pr := s.proc
	if pr != nil && pr.dead() {
		s.proc, pr = nil, nil
	}
	resume := s.claudeID
	cur := s.model
	s.mu.Unlock()
	if pr != nil {
		if model != "" && model != cur {
			if _, err := pr.request("set_model", map[string]any{"model": model}); err != nil {
				s.drop(pr)
				return nil, pr.failure(fmt.Errorf("set claude model: %w", err))
			}
			s.mu.Lock()
			s.model = model
			s.mu.Unlock()
		}
		return pr, nil
	}
	if resume == "" {
		resume = req.Resume
	}
	if resume != "" && !sessionIDPattern.MatchString(resume) {
		out.Notice(fmt.Sprintf("cannot resume claude session %q (not a session id): starting a new one", resume))
		resume = ""
	}
	pr, err := a.start(host, model, req.Instructions, resume)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		// CloseSession ran while the CLI started: nobody would end it.
		s.mu.Unlock()
		pr.kill()
		return nil, fmt.Errorf("start claude: %w", procpool.ErrClosed)
	}
	s.proc, s.model, s.costBase, s.claudeID = pr, model, 0, resume
	s.mu.Unlock()
	return pr, nil
}

func lastLine(err error) string {
	var pe *ProcessError
	if errors.As(err, &pe) && pe.Stderr != "" {
		lines := strings.Split(pe.Stderr, "\n")
		return lines[len(lines)-1]
	}
	return err.Error()
}

// turn is one Turn in flight.
type turn struct {
	a    *Agent
	s    *session
	pr   *proc
	d    *decoder
	out  harness.Emitter
	host harness.Host
	ws   string

	usage sessions.Usage
	// answers carries the operator's decisions from the approval
	// goroutines back to the loop, which alone writes and keeps state.
	answers chan answer
	done    chan struct{}
	asking  map[string]context.CancelFunc // CLI request id → its approval
	sawInit bool
	// waitFollowUp is set by a result line that did not end the turn.
	waitFollowUp bool
}

// answer is a decided can_use_tool request.
type answer struct {
	requestID, toolUseID string
	body                 any
	denied               bool
	errText              string
}

func (t *turn) run(ctx context.Context, input string) (harness.TurnResult, error) {
	t.answers = make(chan answer)
	t.done = make(chan struct{})
	t.asking = map[string]context.CancelFunc{}
	actx, cancelAsks := context.WithCancel(ctx)
	defer func() {
		cancelAsks()
		close(t.done)
		t.s.mu.Lock()
		t.s.inTurn = false
		t.s.mu.Unlock()
	}()

	t.s.mu.Lock()
	t.s.inTurn, t.s.pending = true, 1
	t.s.mu.Unlock()
	if err := t.pr.write(newUserLine(input)); err != nil {
		return t.fail(t.pr.failure(err))
	}

	cancelled := ctx.Done()
	var deadline, startDeadline, followUp <-chan time.Time
	if t.pr.initID != "" {
		timer := time.NewTimer(t.a.set.StartTimeout)
		defer timer.Stop()
		startDeadline = timer.C
	}
	for {
		select {
		case b, ok := <-t.pr.lines:
			res, end, err := t.onLine(ctx, actx, b, ok)
			if end {
				return res, err
			}
			followUp = nil
			if t.pr.initID == "" {
				startDeadline = nil
			}
			if t.waitFollowUp {
				// A result with a steer not yet taken: the CLI is to start
				// a follow-up turn for it. Bounded, in case it never does.
				t.waitFollowUp = false
				timer := time.NewTimer(t.a.set.StartTimeout)
				defer timer.Stop()
				followUp = timer.C
			}
		case ans := <-t.answers:
			delete(t.asking, ans.requestID)
			if ans.denied {
				t.d.denied[ans.toolUseID] = true
			}
			if err := t.pr.respond(ans.requestID, ans.body, ans.errText); err != nil {
				return t.fail(t.pr.failure(err))
			}
		case <-cancelled:
			// Interrupt through the protocol, then wait (bounded) for the
			// CLI to close the turn with its result line.
			cancelled = nil
			t.d.interrupting = true
			if _, err := t.pr.request("interrupt", nil); err != nil {
				t.d.closeOpen("interrupted")
				t.s.drop(t.pr)
				return t.result(), ctx.Err()
			}
			timer := time.NewTimer(t.a.set.InterruptTimeout)
			defer timer.Stop()
			deadline = timer.C
		case <-followUp:
			t.out.Notice("claude ended its turn without taking the last steer")
			return t.result(), t.finish(ctx)
		case <-startDeadline:
			return t.fail(t.pr.failure(fmt.Errorf("%w within %s", ErrHandshake, t.a.set.StartTimeout)))
		case <-deadline:
			t.out.Notice("claude did not stop within " + t.a.set.InterruptTimeout.String() + " of the interrupt: killed")
			t.d.closeOpen("interrupted")
			t.s.drop(t.pr)
			return t.result(), ctx.Err()
		}
	}
}

// onLine handles one line from the CLI, or the end of its output (ok
// false); end reports that the turn is over, with res and err as Turn's.
func (t *turn) onLine(ctx, actx context.Context, b []byte, ok bool) (res harness.TurnResult, end bool, err error) {
	if !ok {
		if ctx.Err() != nil {
			t.d.closeOpen("interrupted")
			t.s.drop(t.pr)
			return t.result(), true, ctx.Err()
		}
		what := "claude ended mid-turn"
		if t.pr.initID != "" {
			what = "claude ended during start-up"
		}
		res, err = t.fail(t.pr.ended(what))
		return res, true, err
	}
	if t.pr.initID != "" && t.initAnswer(b) {
		if t.pr.initID == "" {
			return res, false, nil
		}
		res, err = t.fail(t.pr.failure(fmt.Errorf("%w: initialize refused: %s", ErrHandshake, harness.Clip(string(b), 300))))
		return res, true, err
	}
	res, done, err := t.line(ctx, actx, b)
	if done {
		// The CLI closed the turn; an error here (an API failure, a
		// failed turn) leaves the process usable.
		if cerr := t.finish(ctx); cerr != nil {
			return res, true, cerr
		}
		return res, true, err
	}
	if err != nil {
		res, err = t.fail(err)
		return res, true, err
	}
	return res, false, nil
}

func (t *turn) result() harness.TurnResult {
	return harness.TurnResult{Stop: harness.StopEnd, Usage: t.usage}
}

// fail ends the turn on an error that leaves the process unusable.
func (t *turn) fail(err error) (harness.TurnResult, error) {
	t.d.closeOpen("the claude process failed")
	t.s.drop(t.pr)
	return t.result(), err
}

// finish is called when a result line ended the turn: a cancelled turn
// returns ctx's error, and a process that still holds input of ours
// (a steer the interrupt cut off) is not reused.
func (t *turn) finish(ctx context.Context) error {
	t.d.closeOpen("interrupted")
	t.s.mu.Lock()
	left := t.s.pending
	t.s.mu.Unlock()
	if left > 0 {
		t.s.drop(t.pr)
	}
	return ctx.Err()
}

// line handles one stdout line; done reports the end of the turn.
func (t *turn) line(ctx, actx context.Context, b []byte) (harness.TurnResult, bool, error) {
	l, err := decodeLine(b)
	if err != nil {
		return harness.TurnResult{}, false, t.pr.failure(fmt.Errorf("%w: not a stream-json line: %q", ErrProtocol, harness.Clip(string(b), 300)))
	}
	switch l.Type {
	case "control_request":
		if err := t.controlRequest(actx, l); err != nil {
			// The CLI waits for an answer it will never get: the
			// process is no use any more.
			return harness.TurnResult{}, false, t.pr.failure(fmt.Errorf("answer claude's request %s: %w", l.RequestID, err))
		}
	case "control_cancel_request":
		if cancel := t.asking[l.RequestID]; cancel != nil {
			cancel()
			delete(t.asking, l.RequestID)
		}
	case "control_response":
		// Answers to our interrupt and set_model, and the echoes of our
		// own answers: nothing to do.
	case "result":
		return t.resultLine(ctx, l)
	default:
		if l.Type == "system" && l.Subtype == "init" {
			t.sawInit = true
			t.s.mu.Lock()
			t.s.claudeID = l.SessionID
			t.s.mu.Unlock()
		}
		if l.Type == "user" && l.IsReplay {
			t.s.mu.Lock()
			if t.s.pending > 0 {
				t.s.pending--
			}
			t.s.mu.Unlock()
		}
		if err := t.d.handle(l); err != nil {
			return harness.TurnResult{}, false, t.pr.failure(fmt.Errorf("%w: %w", ErrProtocol, err))
		}
	}
	return harness.TurnResult{}, false, nil
}

// initAnswer reports whether b answers our initialize request, and clears
// the request when the answer is a success.
func (t *turn) initAnswer(b []byte) bool {
	l, err := decodeLine(b)
	if err != nil || l.Type != "control_response" {
		return false
	}
	var r controlResponseBody
	if json.Unmarshal(l.Response, &r) != nil || r.RequestID != t.pr.initID {
		return false
	}
	if r.Subtype != "error" {
		t.pr.initID = ""
	}
	return true
}

// resultLine accounts a result line and decides whether the turn is over:
// not while a steer written to the CLI waits to be answered.
func (t *turn) resultLine(ctx context.Context, l line) (harness.TurnResult, bool, error) {
	if l.IsError && !t.sawInit && t.pr.resumed && ctx.Err() == nil {
		t.s.drop(t.pr)
		return harness.TurnResult{}, false, errResumeRefused{t.pr.ended("claude refused to resume the session")}
	}
	u := l.Usage
	t.s.mu.Lock()
	cost := l.TotalCostUSD - t.s.costBase
	if cost < 0 {
		cost = l.TotalCostUSD
	}
	t.s.costBase = l.TotalCostUSD
	if l.SessionID != "" && t.sawInit {
		t.s.claudeID = l.SessionID
	}
	pending := t.s.pending
	finished := pending == 0 || l.IsError || ctx.Err() != nil
	if finished {
		t.s.inTurn = false
	}
	t.s.mu.Unlock()
	t.usage = t.usage.Add(sessions.Usage{
		InputTokens:  u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
		OutputTokens: u.OutputTokens, CostUSD: cost})
	t.out.Usage(t.usage)
	if !finished {
		t.waitFollowUp = true
		return harness.TurnResult{}, false, nil
	}
	res := t.result()
	if t.d.stopHint != "" || l.StopReason == "max_tokens" {
		res.Stop = harness.StopMaxTokens
	}
	if !l.IsError || ctx.Err() != nil {
		return res, true, nil
	}
	switch l.Subtype {
	case "error_max_turns":
		res.Stop = harness.StopMaxTurns
		return res, true, nil
	case "error_max_budget_usd":
		res.Stop = harness.StopMaxTokens
		return res, true, nil
	}
	auth := t.d.authFailed || loginText(l.Result)
	if l.APIErrorStatus != nil {
		auth = auth || *l.APIErrorStatus == 401
		err := fmt.Errorf("claude: %w %d: %s", ErrAPI, *l.APIErrorStatus, l.Result)
		if auth {
			err = notLoggedIn(err)
		}
		return res, true, err
	}
	why := strings.Join(l.Errors, "; ")
	if why == "" {
		why = l.Result
	}
	if why == "" && len(t.d.notices) > 0 {
		why = t.d.notices[len(t.d.notices)-1]
	}
	if auth || loginText(why) {
		return res, true, t.pr.failure(notLoggedIn(fmt.Errorf("%w: %s", ErrTurnFailed, why)))
	}
	return res, true, t.pr.failure(fmt.Errorf("%w (%s): %s", ErrTurnFailed, l.Subtype, why))
}

// controlRequest answers what the CLI asks of us: can_use_tool goes to the
// operator in its own goroutine (the stream goes on meanwhile); anything
// else gets an error answer so the CLI does not wait for it. The error is
// that of writing such an answer.
func (t *turn) controlRequest(actx context.Context, l line) error {
	var req controlRequest
	if err := json.Unmarshal(l.Request, &req); err != nil || l.RequestID == "" {
		if l.RequestID == "" {
			return nil // nothing to answer to
		}
		return t.pr.respond(l.RequestID, nil, "malformed request")
	}
	if req.Subtype != "can_use_tool" {
		return t.pr.respond(l.RequestID, nil, "not supported by this client: "+req.Subtype)
	}
	if t.d.interrupting {
		return nil // the interrupt withdraws it
	}
	ctx, cancel := context.WithCancel(actx)
	t.asking[l.RequestID] = cancel
	go func() {
		defer cancel()
		ans, ok := decide(ctx, t.host, t.ws, l.RequestID, req)
		if !ok {
			return
		}
		select {
		case t.answers <- ans:
		case <-t.done:
		}
	}()
	return nil
}
