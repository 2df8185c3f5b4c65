package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/internal/termsafe"
)

func (s *streams) printInstances(list []client.InstanceInfo) error {
	t := s.table()
	fmt.Fprintln(t, "ID\tKIND\tSESSIONS\tWHERE")
	for _, in := range list {
		sess := strings.Join(in.Sessions, ",")
		if sess == "" {
			sess = "-"
		}
		where := in.Path
		if in.Branch != "" {
			where += " (" + in.Branch + ")"
		}
		if !in.Ready {
			where += " (being made)"
		}
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\n", in.ID, in.Kind, sess, where)
	}
	return t.Flush()
}

// printDiffStat prints each changed file with its status and lines.
func (s *streams) printDiffStat(d instances.Diff) error {
	if len(d.Files) == 0 {
		fmt.Fprintf(s.err, "instance %s changed nothing\n", d.Instance)
		return nil
	}
	t := s.table()
	for _, f := range d.Files {
		fmt.Fprintf(t, "%s\t%s\t%s\n", f.Status, f.Path, lines(f))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	added, removed := d.Lines()
	fmt.Fprintf(s.out, "%d file(s), +%d -%d\n", len(d.Files), added, removed)
	return nil
}

func lines(f instances.FileChange) string {
	if f.Binary {
		return "binary"
	}
	return fmt.Sprintf("+%d -%d", f.Added, f.Removed)
}

// printPatch writes the patch: as it is to a pipe or a file (to apply),
// cleaned of control characters on a terminal, as `sessions diff` does.
func (s *streams) printPatch(d instances.Diff) error {
	if d.Patch == "" {
		fmt.Fprintf(s.err, "instance %s changed nothing\n", d.Instance)
		return nil
	}
	_, err := io.WriteString(s.dataOut(), d.Patch)
	return err
}

// printApplyPreview says what an apply would write, on stderr (the
// question follows it there).
func (s *streams) printApplyPreview(pre instances.ApplyResult, d instances.Diff) {
	changes := map[string]instances.FileChange{}
	for _, f := range d.Files {
		changes[f.Path] = f
	}
	fmt.Fprintf(s.err, "instance %s would write %d file(s):\n", pre.Instance, len(pre.Files))
	for _, f := range pre.Files {
		merged := ""
		if f.Merged {
			merged = " (merged with yours)"
		}
		fmt.Fprintf(s.err, "  %-8s %s %s%s\n", f.Status, termsafe.String(f.Path), lines(changes[f.Path]), merged)
	}
	for _, u := range pre.Unmerged {
		fmt.Fprintf(s.err, "  cannot merge %s: %s (it would be left as it is)\n", termsafe.String(u.Path), u.Why)
	}
}

func (s *streams) printApplied(res instances.ApplyResult) {
	merged := 0
	for _, f := range res.Files {
		if f.Merged {
			merged++
		}
		fmt.Fprintln(s.out, termsafe.String(f.Path))
	}
	fmt.Fprintf(s.err, "applied %d file(s) of instance %s", len(res.Files), res.Instance)
	if merged > 0 {
		fmt.Fprintf(s.err, " (%d merged with yours)", merged)
	}
	fmt.Fprintln(s.err)
	for _, u := range res.Unmerged {
		fmt.Fprintf(s.err, "not merged, left as it is: %s: %s\n", termsafe.String(u.Path), u.Why)
	}
}

// byteSize writes a size in bytes for people: "1.2 GB".
func byteSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}
