package core

import (
	"fmt"
	"strings"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

// grantOf is the grant an approval's "allow for this session" makes: of
// its command, or of the commands starting with the answer's prefix
// (engine.Grant says what each covers).
func grantOf(tool, command, prefix string) engine.Grant {
	switch {
	case command == "":
		return engine.Grant{Tool: tool}
	case prefix != "":
		return engine.Grant{Tool: tool, Command: prefix, Prefix: true}
	}
	return engine.Grant{Tool: tool, Command: command}
}

// checkPrefix refuses a prefix an approval's command does not start with
// at a word's end, or one with a space at either end.
func checkPrefix(it sessions.Interaction, prefix string) error {
	if it.Command == "" {
		return fmt.Errorf("answer to approval %s: a prefix grant needs a command; this approval is of %s: %w", it.ID, it.Tool, ErrBadAnswer)
	}
	if strings.TrimSpace(prefix) != prefix {
		return fmt.Errorf("answer to approval %s: the prefix %q starts or ends with a space: %w", it.ID, prefix, ErrBadAnswer)
	}
	if g := (engine.Grant{Tool: it.Tool, Command: prefix, Prefix: true}); !g.Covers(it.Tool, it.Command) {
		return fmt.Errorf("answer to approval %s: %q does not start the command %q at a word's end, or what follows it has a shell operator: %w", it.ID, prefix, it.Command, ErrBadAnswer)
	}
	return nil
}

// grantSet is a session's grants, by key.
type grantSet map[string]engine.Grant

func (s grantSet) add(g engine.Grant) { s[g.Key()] = g }

// revoke removes the grant named key. A key that names a whole tool that
// runs commands was written before grants of commands had their scope:
// it withdraws every grant of that tool, as it did then.
func (s grantSet) revoke(key string) {
	delete(s, key)
	for k, g := range s {
		if g.Tool == key && g.Command != "" {
			delete(s, k)
		}
	}
}

// allowing returns the grant that covers a call, if one does.
func (s grantSet) allowing(tool, command string) (engine.Grant, bool) {
	if g, ok := s[grantOf(tool, command, "").Key()]; ok && g.Covers(tool, command) {
		return g, true
	}
	for _, g := range s {
		if g.Prefix && g.Covers(tool, command) {
			return g, true
		}
	}
	return engine.Grant{}, false
}
