package sessions

// Action is what the pane asks the root to do with a session.
type Action interface{ sessionAction() }

// Open asks for the session's tab.
type Open struct{ ID string }

// Start asks to start a created session.
type Start struct{ ID string }

// Archive asks to archive (or unarchive) a session.
type Archive struct {
	ID       string
	Archived bool
}

// Fork asks to fork a session into a new one.
type Fork struct{ ID, Title string }

// Delete asks to delete a session; the root confirms first.
type Delete struct {
	ID, Title string
	Live      bool
}

func (Open) sessionAction()    {}
func (Start) sessionAction()   {}
func (Archive) sessionAction() {}
func (Fork) sessionAction()    {}
func (Delete) sessionAction()  {}
