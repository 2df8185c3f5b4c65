package config

import "slices"

// Harness names the adapter that drives an agent (DESIGN.md §3).
type Harness string

// The harnesses Atelier ships.
const (
	HarnessDemo      Harness = "demo"
	HarnessClaude    Harness = "claude"
	HarnessCodex     Harness = "codex"
	HarnessACP       Harness = "acp"
	HarnessOpenAI    Harness = "openai"
	HarnessAnthropic Harness = "anthropic"
)

// Harnesses lists every harness, in the order the docs present them.
func Harnesses() []Harness {
	return []Harness{HarnessDemo, HarnessClaude, HarnessCodex, HarnessACP, HarnessOpenAI, HarnessAnthropic}
}

// OwnLoop reports whether Atelier runs the tool loop for this harness (and so
// the agent's tools, base URL and API key matter) rather than an agent CLI
// that runs its own tools.
func (h Harness) OwnLoop() bool {
	return h == HarnessDemo || h == HarnessOpenAI || h == HarnessAnthropic
}

// TakesKey reports whether the harness talks to a model API whose server
// and key the configuration may set (base_url, api_key_env): the model
// harnesses, and the claude and codex CLIs, which the adapters point at
// the server and hand the key. ACP agents have no common way to take them
// (their env table does), and demo talks to nothing.
func (h Harness) TakesKey() bool {
	switch h {
	case HarnessOpenAI, HarnessAnthropic, HarnessClaude, HarnessCodex:
		return true
	}
	return false
}

// Approval is an agent's approval policy: which actions need an answer.
type Approval string

// The approval policies.
const (
	ApprovalAsk      Approval = "ask"       // writes and commands need an answer
	ApprovalAuto     Approval = "auto"      // everything is allowed (protected paths still ask)
	ApprovalReadOnly Approval = "read-only" // writes and commands are refused
)

// The isolations a session can work in ([agents.X] isolation, the
// instances of DESIGN.md): the workspace folder, or an instance of its
// own.
const (
	IsolationInPlace  = "in-place"
	IsolationWorktree = "worktree"
	IsolationCopy     = "copy"
)

// Execution says where an agent's commands run.
type Execution string

// The execution environments.
const (
	ExecutionLocal  Execution = "local"
	ExecutionDocker Execution = "docker"
)

// The engine's built-in tools, as named in an agent's tools list and rules.
const (
	ToolReadFile  = "read_file"
	ToolWriteFile = "write_file"
	ToolEditFile  = "edit_file"
	ToolList      = "list"
	ToolGlob      = "glob"
	ToolGrep      = "grep"
	ToolExec      = "exec"
	ToolAskUser   = "ask_user"
	ToolWait      = "wait"
)

// AllTools lists the engine's tools; an agent that does not list its tools
// gets all of them.
func AllTools() []string {
	return []string{ToolReadFile, ToolWriteFile, ToolEditFile, ToolList, ToolGlob,
		ToolGrep, ToolExec, ToolAskUser, ToolWait}
}

// Agent is one configured agent: a harness plus its settings (DESIGN.md §6).
// Fields left unset in the files hold their defaults (approval ask,
// execution local, every tool); zero MaxTurns or MaxTokens means no limit of
// the configuration's own.
type Agent struct {
	Name         string
	Harness      Harness
	Model        string
	BaseURL      string
	APIKeyEnv    string // the NAME of the variable holding the key, never the key
	Instructions string
	Tools        []string
	Approval     Approval
	Rules        []Rule
	Execution    Execution
	Image        string
	// Isolation is where the agent's sessions work when a create names
	// none: IsolationInPlace (the default), IsolationWorktree or
	// IsolationCopy.
	Isolation string
	Command   []string          // argv; for acp, or to replace the claude/codex binary
	Env       map[string]string // extra environment; "${NAME}" values come from ours
	MaxTurns  int
	MaxTokens int
}

// HasTool reports whether the agent may use the engine tool name.
func (a Agent) HasTool(name string) bool { return slices.Contains(a.Tools, name) }

// defaultAgent is what an agent table starts from before its keys apply.
func defaultAgent(name string) Agent {
	return Agent{
		Name:      name,
		Tools:     AllTools(),
		Approval:  ApprovalAsk,
		Execution: ExecutionLocal,
	}
}
