package workspaces

// Action is what a key of the tab asks the root to do.
type Action interface{ workspacesAction() }

// Diff asks for the instance's diff against its base in a diff tab.
type Diff struct{ ID string }

// Apply asks to apply the instance: the root previews, then confirms.
type Apply struct{ ID string }

// Files asks the file pane to show the instance's files; ID "" is the
// workspace folder.
type Files struct{ ID string }

// Discard asks to discard the instance (the root asks first).
type Discard struct{ ID string }

// Branch asks for a branch made of a worktree instance's work (the root
// asks its name).
type Branch struct{ ID string }

// Refresh asks for the instances to be read again.
type Refresh struct{}

// Notice is something to tell the operator: why a key did nothing.
type Notice struct{ Text string }

func (Diff) workspacesAction()    {}
func (Apply) workspacesAction()   {}
func (Files) workspacesAction()   {}
func (Discard) workspacesAction() {}
func (Branch) workspacesAction()  {}
func (Refresh) workspacesAction() {}
func (Notice) workspacesAction()  {}
