package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// WorkspaceDirName is the workspace's folder of files Atelier obeys beside
// .atelier.toml (workflows, in .atelier/workflows/). Trust covers it too.
const WorkspaceDirName = ".atelier"

// trustContent is what trust covers for the workspace whose .atelier.toml
// is file (content toml when found): the file and every file under
// .atelier/ beside it, so that a change to a workflow, like a change to
// the configuration, needs the operator's trust again. With nothing under
// .atelier/ it is the file's content alone, so trust given before .atelier/
// existed still holds. found is false when there is neither.
//
// Each file under .atelier/ is appended after a header line naming it,
// in path order; a symbolic link is named with its target, never followed
// (an agent could point it anywhere).
func trustContent(file string, toml []byte, tomlFound bool) (data []byte, found bool, err error) {
	data, _, found, err = trustContentOf(file, toml, tomlFound)
	return data, found, err
}

// trustContentOf is trustContent with the files it covers, relative to the
// workspace (.atelier.toml first when it exists).
func trustContentOf(file string, toml []byte, tomlFound bool) (data []byte, covers []string, found bool, err error) {
	if tomlFound {
		covers = append(covers, WorkspaceFileName)
	}
	dir := filepath.Join(filepath.Dir(file), WorkspaceDirName)
	type entry struct {
		rel  string
		body []byte
	}
	var extra []entry
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		rel, rerr := filepath.Rel(filepath.Dir(file), p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, lerr := os.Readlink(p)
			if lerr != nil {
				return lerr
			}
			extra = append(extra, entry{rel: rel + " -> " + target})
		case d.Type().IsRegular():
			b, rerr := os.ReadFile(p)
			if rerr != nil {
				return rerr
			}
			extra = append(extra, entry{rel: rel, body: b})
		}
		return nil
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("read %s: %w", dir, err)
	}
	if len(extra) == 0 {
		return toml, covers, tomlFound, nil
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i].rel < extra[j].rel })
	for _, e := range extra {
		covers = append(covers, e.rel)
	}
	var b bytes.Buffer
	b.Write(toml)
	for _, e := range extra {
		if b.Len() > 0 && !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "# ==== %s ====\n", e.rel)
		b.Write(e.body)
	}
	return b.Bytes(), covers, true, nil
}

// readTrusted reads what trust covers for the workspace file (see
// trustContent).
func readTrusted(file string) ([]byte, bool, error) {
	data, _, found, err := readTrustedOf(file)
	return data, found, err
}

// readTrustedOf is readTrusted with the files covered.
func readTrustedOf(file string) ([]byte, []string, bool, error) {
	toml, found, err := readFile(file)
	if err != nil {
		return nil, nil, false, err
	}
	return trustContentOf(file, toml, found)
}
