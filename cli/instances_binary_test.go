package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/harness"
)

// fullDemo is an agent running the demo's whole script: it lists the
// files, writes atelier-demo.md ("The task was: PROMPT"), asks a question
// (--approve auto takes its default) and waits a few seconds.
const fullDemo = quickAgent + `
[agents.full]
harness = "demo"
`

// git runs git in the sandbox's workspace (never taking optional locks,
// so reading the status does not rewrite the index) and returns its
// output.
func (b *sandbox) git(args ...string) string {
	b.t.Helper()
	cmd := exec.Command("git", append([]string{"--no-optional-locks", "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Dir = b.ws
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// repoState is what must not change in the user's repository: HEAD, the
// index's bytes, the refs, the stash, the worktrees and the status.
type repoState struct {
	head, refs, stash, worktrees, status string
	index                                []byte
}

func (b *sandbox) repoState() repoState {
	b.t.Helper()
	index, err := os.ReadFile(filepath.Join(b.ws, ".git", "index"))
	if err != nil {
		b.t.Fatal(err)
	}
	return repoState{head: b.git("rev-parse", "HEAD"), refs: b.git("for-each-ref"), stash: b.git("stash", "list", "--format=%H %gs"),
		worktrees: b.git("worktree", "list", "--porcelain"), status: b.git("status", "--porcelain=v1", "-uall"), index: index}
}

// instancesList reads `instances list --json`.
func (b *sandbox) instancesList() []client.InstanceInfo {
	b.t.Helper()
	r := b.run("instances", "list", "--json").want(b.t, ExitOK)
	var list []client.InstanceInfo
	if err := json.Unmarshal([]byte(r.out), &list); err != nil {
		b.t.Fatalf("instances list --json: %v\n%s", err, r.out)
	}
	return list
}

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBinaryInstances drives instances as a user would, with the real
// binary, its host and real git: two demo sessions on two worktree
// instances write the same file differently and both survive; apply
// previews and asks (exit 4 with no terminal), then writes the first;
// the second refuses on the conflict, and --3way merges what git can (a
// file both changed in different places) and leaves the rest; discard
// removes each worktree and its branch (asking first, or --yes, when
// changes were not applied); a copy leaves node_modules out. Once the
// instances are gone the user's repository is as it was (HEAD, the index
// byte for byte, refs, stash, worktrees, status) but for the files apply
// wrote.
func TestBinaryInstances(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	b.configure(fullDemo)
	writeFile(t, filepath.Join(b.ws, "README.md"), "line1\nline2\nline3\nline4\nline5\n")
	writeFile(t, filepath.Join(b.ws, "node_modules", "pkg", "index.js"), "module.exports = 1\n")
	writeFile(t, filepath.Join(b.ws, "stashed.txt"), "one\n")
	b.git("init", "-q", "-b", "main")
	b.git("add", ".")
	b.git("commit", "-q", "-m", "first")
	writeFile(t, filepath.Join(b.ws, "stashed.txt"), "two\n")
	b.git("stash", "-q")
	writeFile(t, filepath.Join(b.ws, "staged.txt"), "staged\n")
	b.git("add", "staged.txt")
	before := b.repoState()

	// Two sessions on two worktrees write atelier-demo.md differently.
	alpha := b.start("run", "--agent", "full", "--approve", "auto", "--isolation", "worktree", "alpha")
	beta := b.start("run", "--agent", "full", "--approve", "auto", "--isolation", "worktree", "beta")
	alpha.wait(t).want(t, ExitOK)
	beta.wait(t).want(t, ExitOK)
	list := b.instancesList()
	if len(list) != 3 || list[0].ID != "main" {
		t.Fatalf("instances: %+v", list)
	}
	byTask := map[string]client.InstanceInfo{}
	for _, in := range list[1:] {
		if in.Kind != "worktree" || len(in.Sessions) != 1 || in.Sessions[0] != in.ID || in.Branch != "atelier/"+in.ID {
			t.Fatalf("instance %+v", in)
		}
		note := readText(t, filepath.Join(in.Path, harness.DemoFile))
		switch {
		case strings.Contains(note, "The task was: alpha"):
			byTask["alpha"] = in
		case strings.Contains(note, "The task was: beta"):
			byTask["beta"] = in
		}
		if readText(t, filepath.Join(in.Path, "staged.txt")) != "staged\n" {
			t.Errorf("instance %s lacks the operator's staged file", in.ID)
		}
	}
	a, z := byTask["alpha"], byTask["beta"]
	if a.ID == "" || z.ID == "" {
		t.Fatalf("the notes are not one each: %+v", list)
	}
	if _, err := os.Stat(filepath.Join(b.ws, harness.DemoFile)); !os.IsNotExist(err) {
		t.Fatalf("a session on an instance wrote the workspace folder: %v", err)
	}

	// Preview: no terminal and no --yes prints it and writes nothing.
	r := b.run("instances", "apply", a.ID).want(t, ExitNeedsYou)
	if !strings.Contains(r.err, harness.DemoFile) || !strings.Contains(r.err, "+5 -0") || !strings.Contains(r.err, "--yes") {
		t.Fatalf("the preview does not show the file and its lines:\n%s", r.err)
	}
	if _, err := os.Stat(filepath.Join(b.ws, harness.DemoFile)); !os.IsNotExist(err) {
		t.Fatalf("a preview wrote: %v", err)
	}
	r = b.run("instances", "apply", a.ID, "--yes").want(t, ExitOK)
	if strings.TrimSpace(r.out) != harness.DemoFile {
		t.Fatalf("apply printed %q", r.out)
	}
	if got := readText(t, filepath.Join(b.ws, harness.DemoFile)); !strings.Contains(got, "alpha") {
		t.Fatalf("applied note: %q", got)
	}

	// The operator and the second instance change README.md in different
	// places; the second's note conflicts with the first's.
	writeFile(t, filepath.Join(b.ws, "README.md"), "LINE1\nline2\nline3\nline4\nline5\n")
	writeFile(t, filepath.Join(z.Path, "README.md"), "line1\nline2\nline3\nline4\nLINE5\n")
	r = b.run("instances", "apply", z.ID, "--yes").want(t, ExitConflict)
	if !strings.Contains(r.err, harness.DemoFile) || !strings.Contains(r.err, "README.md") {
		t.Fatalf("the conflict does not name both files:\n%s", r.err)
	}
	if got := readText(t, filepath.Join(b.ws, "README.md")); got != "LINE1\nline2\nline3\nline4\nline5\n" {
		t.Fatalf("a refused apply wrote README.md: %q", got)
	}
	r = b.run("instances", "apply", z.ID, "--3way", "--yes", "--json").want(t, ExitConflict)
	var res client.ApplyResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatalf("apply --json: %v\n%s", err, r.out)
	}
	if len(res.Files) != 1 || res.Files[0].Path != "README.md" || !res.Files[0].Merged ||
		len(res.Unmerged) != 1 || res.Unmerged[0].Path != harness.DemoFile {
		t.Fatalf("3-way apply: %+v", res)
	}
	if got := readText(t, filepath.Join(b.ws, "README.md")); got != "LINE1\nline2\nline3\nline4\nLINE5\n" {
		t.Fatalf("merged README.md: %q", got)
	}
	if got := readText(t, filepath.Join(b.ws, harness.DemoFile)); !strings.Contains(got, "alpha") {
		t.Fatalf("the unmerged note was changed: %q", got)
	}

	// Discard: the first's changes are in the workspace; the second's
	// note is not, so it asks (no terminal: exit 4) or needs --yes.
	b.run("instances", "discard", a.ID).want(t, ExitOK)
	r = b.run("instances", "discard", z.ID).want(t, ExitNeedsYou)
	if !strings.Contains(r.err, harness.DemoFile) || !strings.Contains(r.err, "run again with --yes") {
		t.Fatalf("discard does not name the unapplied file, or does not say to pass --yes:\n%s", r.err)
	}
	if _, err := os.Stat(z.Path); err != nil {
		t.Fatalf("a refused discard removed the instance: %v", err)
	}
	b.run("instances", "discard", z.ID, "--yes").want(t, ExitOK)
	for _, in := range []client.InstanceInfo{a, z} {
		if _, err := os.Stat(in.Path); !os.IsNotExist(err) {
			t.Errorf("instance %s's folder is still there: %v", in.ID, err)
		}
		if refs := b.git("for-each-ref", "refs/heads/"+in.Branch); refs != "" {
			t.Errorf("branch %s is still there: %s", in.Branch, refs)
		}
	}
	b.run("instances", "discard", z.ID).want(t, ExitUsage)

	// A copy leaves node_modules out, and keeps the rest.
	r = b.run("instances", "create", "copy", "c1").want(t, ExitOK)
	if strings.TrimSpace(r.out) != "c1" {
		t.Fatalf("create printed %q", r.out)
	}
	list = b.instancesList()
	if len(list) != 2 || list[1].ID != "c1" {
		t.Fatalf("instances: %+v", list)
	}
	c := list[1]
	if _, err := os.Stat(filepath.Join(c.Path, "node_modules")); !os.IsNotExist(err) {
		t.Fatalf("the copy holds node_modules: %v", err)
	}
	if readText(t, filepath.Join(c.Path, "README.md")) != "LINE1\nline2\nline3\nline4\nLINE5\n" {
		t.Fatal("the copy lacks the workspace's README.md as it is")
	}
	b.run("instances", "discard", "c1").want(t, ExitOK)
	if list := b.instancesList(); len(list) != 1 {
		t.Fatalf("instances left: %+v", list)
	}

	// The repository is as it was, but for the files apply wrote.
	after := b.repoState()
	if after.head != before.head || after.refs != before.refs || after.stash != before.stash || after.worktrees != before.worktrees {
		t.Errorf("the repository changed:\nbefore %+v\nafter  %+v", before, after)
	}
	if !bytes.Equal(after.index, before.index) {
		t.Error("the index's bytes changed")
	}
	wrote := []string{"README.md", harness.DemoFile}
	if got, want := withoutPaths(after.status, wrote), withoutPaths(before.status, wrote); got != want {
		t.Errorf("git status changed beyond the applied files:\nbefore:\n%s\nafter:\n%s", before.status, after.status)
	}
	if !strings.Contains(after.status, " M README.md") || !strings.Contains(after.status, "?? "+harness.DemoFile) {
		t.Errorf("the applied files are not in the status:\n%s", after.status)
	}
}

// withoutPaths drops the status lines of paths.
func withoutPaths(status string, paths []string) string {
	var keep []string
	for _, l := range strings.Split(status, "\n") {
		if len(l) > 3 && slices.Contains(paths, l[3:]) {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// TestBinaryCopySizeAndAgentIsolation: an agent's isolation is its
// sessions' default (a run that names none works on a copy of its own);
// a copy over [instances] warn_size is said with its size and, with no
// terminal to ask on, made only with --yes (exit 4 and nothing made
// without); --isolation in-place overrides the agent's.
func TestBinaryCopySizeAndAgentIsolation(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	b.configure(quickAgent + `isolation = "copy"

[instances]
warn_size = 10
`)
	writeFile(t, filepath.Join(b.ws, "big.txt"), strings.Repeat("x", 100))

	r := b.run("instances", "create", "copy").want(t, ExitNeedsYou)
	if !strings.Contains(r.err, "would hold") || !strings.Contains(r.err, "warn_size") {
		t.Fatalf("the size is not said:\n%s", r.err)
	}
	r = b.run("run", "a task").want(t, ExitNeedsYou)
	if !strings.Contains(r.err, "--yes") {
		t.Fatalf("run over warn_size:\n%s", r.err)
	}
	if list := b.instancesList(); len(list) != 1 {
		t.Fatalf("a copy was made without --yes: %+v", list)
	}
	b.run("run", "--yes", "a task").want(t, ExitOK)
	b.run("run", "--isolation", "in-place", "another").want(t, ExitOK)
	list := b.instancesList()
	if len(list) != 2 || list[1].Kind != "copy" || len(list[1].Sessions) != 1 || len(list[0].Sessions) != 1 {
		t.Fatalf("instances: %+v", list)
	}
	b.run("run", "--isolation", "worktree", "--instance", list[1].ID, "x").want(t, ExitUsage)
	b.run("run", "--isolation", "vm", "x").want(t, ExitUsage)
	b.run("run", "--instance", "nope", "x").want(t, ExitUsage)
	r = b.run("instances", "create", "copy", "c2", "--yes").want(t, ExitOK)
	if strings.TrimSpace(r.out) != "c2" {
		t.Fatalf("create printed %q", r.out)
	}
}
