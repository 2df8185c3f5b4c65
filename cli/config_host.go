package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/internal/termsafe"
)

// `atelier config` reads the files; a host that runs uses what it loaded
// from them, as it started or as a reload since applied it, and it may
// have refused a change. The command asks it (GET /v1/config) and says
// whether its view differs from the files, and why. It never starts a
// host to ask.

// hostConfigTimeout bounds the question to the running host.
const hostConfigTimeout = 5 * time.Second

// runningHostConfig asks the workspace's running host what configuration
// it uses. ok is false when no host runs; err says why a host that runs
// did not answer.
func runningHostConfig(ctx context.Context, ws string) (st host.Status, v client.HostConfig, ok bool, err error) {
	st, err = host.Probe(ws)
	if err != nil || !st.Running || st.Socket == "" {
		return st, v, false, nil // no host to ask: the files are all there is
	}
	c, err := client.New(st.Socket, client.Options{Label: "cli"})
	if err != nil {
		return st, v, true, err
	}
	defer c.CloseIdle()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, hostConfigTimeout)
	defer cancel()
	v, err = c.Config(ctx)
	return st, v, true, err
}

// printHostConfig says how the running host's configuration compares with
// the files' (disk; nil when they failed to load) on w. What the host
// answers is shown in its safe form: a value may hold any character.
func printHostConfig(ctx context.Context, out io.Writer, ws string, disk *config.Config) {
	w := safeWriter{out}
	st, v, ok, err := runningHostConfig(ctx, ws)
	if !ok {
		return
	}
	var p *client.Problem
	switch {
	case errors.As(err, &p) && p.Status == http.StatusNotFound:
		fmt.Fprintf(w, "\nthe running host (process %d%s) does not report its configuration: it is of an older build; what changed since it started may not apply until `atelier serve --restart`\n",
			st.PID, builtAs(st.Version))
		return
	case err != nil:
		fmt.Fprintf(w, "\ncannot ask the running host (process %d) what it uses: %v\n", st.PID, err)
		return
	}
	fmt.Fprintf(w, "\nthe running host (process %d) loaded its configuration at %s\n", st.PID, v.LoadedAt.Local().Format(time.DateTime))
	if disk == nil {
		fmt.Fprintln(w, "it keeps the configuration it had: the files fail to load (below)")
		return
	}
	diffs := configDiffs(v.Entries, disk.Effective())
	if len(diffs) == 0 && len(v.NotApplied) == 0 {
		fmt.Fprintln(w, "it uses what the files say")
		return
	}
	fmt.Fprintln(w, "the host has not applied:")
	for _, d := range diffs {
		fmt.Fprintln(w, "  "+d)
	}
	if len(diffs) == 0 {
		// Loaded, but only a restart puts them in force.
		for _, n := range v.NotApplied {
			fmt.Fprintln(w, "  "+n)
		}
		return
	}
	if len(v.NotApplied) > 0 {
		fmt.Fprintln(w, "because:")
		for _, n := range v.NotApplied {
			fmt.Fprintln(w, "  "+n)
		}
	} else {
		fmt.Fprintln(w, "because: it has not reloaded them yet (a change applies once the files are quiet for a moment)")
	}
}

// configDiffs lists the keys whose value the host uses differs from the
// files', each with both values.
func configDiffs(hostEntries []client.ConfigEntry, disk []config.Entry) []string {
	uses := map[string]string{}
	for _, e := range hostEntries {
		uses[e.Key] = e.Value
	}
	var out []string
	seen := map[string]bool{}
	for _, e := range disk {
		seen[e.Key] = true
		v, ok := uses[e.Key]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s = %s (the host has none)", e.Key, e.Value))
		case v != e.Value:
			out = append(out, fmt.Sprintf("%s = %s (the host uses %s)", e.Key, e.Value, v))
		}
	}
	for _, e := range hostEntries {
		if !seen[e.Key] {
			out = append(out, fmt.Sprintf("%s removed (the host still uses %s)", e.Key, e.Value))
		}
	}
	return out
}

// safeWriter writes the safe form (termsafe) of what it is given.
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, termsafe.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
