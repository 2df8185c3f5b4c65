package editor

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// historyLimit bounds the undo steps kept.
const historyLimit = 1000

// kind says how an edit was made, for grouping.
type kind uint8

const (
	kindOther kind = iota
	kindType
	kindDelete
)

// edit is one undoable change: at `at`, removed was replaced by inserted.
type edit struct {
	at                Pos
	removed, inserted string
	before, after     Pos // the cursor around the change
	id                uint64
	kind              kind
}

// history is the undo and redo stacks.
type history struct {
	undo, redo []edit
	next       uint64 // the id of the next edit
}

// current is the id of the state the text is in: the last edit applied.
func (h *history) current() uint64 {
	if len(h.undo) == 0 {
		return 0
	}
	return h.undo[len(h.undo)-1].id
}

// record adds an applied edit, merging it into the previous one when both
// are typing (or deleting) of adjacent characters on one line, the state
// in between was not saved, and no word boundary lies between them.
func (h *history) record(e edit, saved uint64) {
	h.redo = h.redo[:0]
	if n := len(h.undo); n > 0 && e.kind != kindOther {
		last := &h.undo[n-1]
		if last.kind == e.kind && last.id != saved && mergeable(last, e) {
			switch e.kind {
			case kindType:
				last.inserted += e.inserted
			case kindDelete:
				if e.at == last.at { // forward delete
					last.removed += e.removed
				} else {
					last.at = e.at
					last.removed = e.removed + last.removed
				}
			}
			last.after = e.after
			return
		}
	}
	h.next++
	e.id = h.next
	h.undo = append(h.undo, e)
	if len(h.undo) > historyLimit {
		h.undo = append(h.undo[:0:0], h.undo[len(h.undo)-historyLimit:]...)
	}
}

func mergeable(last *edit, e edit) bool {
	switch e.kind {
	case kindType:
		if last.removed != "" || e.removed != "" || strings.Contains(e.inserted, "\n") {
			return false
		}
		if endOf(last.at, last.inserted) != e.at {
			return false
		}
		// A space after a word starts a new step: undo takes back a word.
		prev, _ := utf8.DecodeLastRuneInString(last.inserted)
		r, _ := utf8.DecodeRuneInString(e.inserted)
		return !unicode.IsSpace(r) || unicode.IsSpace(prev)
	case kindDelete:
		if last.inserted != "" || e.inserted != "" || strings.Contains(e.removed, "\n") || e.at.Line != last.at.Line {
			return false
		}
		return e.at == last.at || endOf(e.at, e.removed) == last.at
	}
	return false
}
