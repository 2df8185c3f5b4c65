// Package harness defines how the engine talks to agents, and holds the
// adapters: demo, and (in sub-packages) claude, codex, acp, openai and
// anthropic.
//
// Two families exist (DESIGN.md §3). A Model is driven by the engine's own
// tool loop: one Step is one model call whose tool calls the engine
// dispatches. An Agent runs its own tools: one Turn is a whole agent turn,
// and it asks the engine for approvals through its Host. The engine hands a
// harness what it needs through the small interfaces declared here; this
// package never imports the engine.
//
// Agent CLIs run with a small environment: the basics of a login
// (BaseEnv) and the variables their own program reads, which each adapter
// declares (EnvSpec) so that a CLI keeps the credentials its users export
// while another program's keys stay out. procpool holds the process each
// CLI adapter keeps per session.
package harness
