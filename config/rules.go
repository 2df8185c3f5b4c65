package config

// Action is what an approval rule decides for the tool calls it matches.
type Action string

// The rule actions.
const (
	ActionAllow Action = "allow" // run without asking
	ActionAsk   Action = "ask"   // ask the operator
	ActionDeny  Action = "deny"  // refuse without asking
)

// Rule is one approval rule of an agent: calls of Tool ("*" for any) whose
// subject (the command line for exec, the path for file tools) matches
// Pattern get Action. Rules refine the agent's approval policy; the first
// rule that matches a call decides it, so exceptions come before the general
// rule.
type Rule struct {
	Tool    string
	Pattern string // a glob where * matches any run of characters, "/" and spaces included
	Action  Action
}

// Matches reports whether the rule applies to a call of tool on subject.
func (r Rule) Matches(tool, subject string) bool {
	if r.Tool != "*" && r.Tool != tool {
		return false
	}
	return globMatch(r.Pattern, subject)
}

// Decide returns the action of the first of the agent's rules that matches
// the call, and false when none does (the approval policy decides then).
func (a Agent) Decide(tool, subject string) (Action, bool) {
	for _, r := range a.Rules {
		if r.Matches(tool, subject) {
			return r.Action, true
		}
	}
	return "", false
}

// globMatch matches s against a pattern where '*' is any run of bytes
// (possibly empty) and '?' any single character; everything else is literal.
// It backtracks only to the last star, so it is linear in practice and never
// exponential.
func globMatch(pattern, s string) bool {
	p, i := []rune(pattern), []rune(s)
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(i) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == i[si]):
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
