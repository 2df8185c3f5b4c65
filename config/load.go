package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// WorkspaceFileName is the workspace's config file, at the workspace root.
const WorkspaceFileName = ".atelier.toml"

// maxFileSize bounds what Load reads of a config file: a config is a few
// kilobytes, anything near this is a mistake, not a config.
const maxFileSize = 1 << 20

// LoadOptions says where Load looks. The zero value loads only the user's
// file, found through the process environment.
type LoadOptions struct {
	// Workspace is the workspace directory; its .atelier.toml is read once
	// trusted. Empty: no workspace file.
	Workspace string
	// UserConfigPath replaces $XDG_CONFIG_HOME/atelier/config.toml; the
	// trust file lives next to it.
	UserConfigPath string
	// Env reads environment variables (XDG_CONFIG_HOME, HOME, and the
	// variables agents name with api_key_env and env); nil means os.Getenv.
	Env func(string) string
}

func (o LoadOptions) getenv() func(string) string {
	if o.Env != nil {
		return o.Env
	}
	return os.Getenv
}

// UserFile returns the user's config file path: the override, else
// $XDG_CONFIG_HOME/atelier/config.toml, else ~/.config/atelier/config.toml.
// A relative XDG_CONFIG_HOME is ignored, as the XDG spec asks.
func (o LoadOptions) UserFile() (string, error) {
	if o.UserConfigPath != "" {
		return filepath.Abs(o.UserConfigPath)
	}
	env := o.getenv()
	if x := env("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "atelier", "config.toml"), nil
	}
	if h := env("HOME"); h != "" && filepath.IsAbs(h) {
		return filepath.Join(h, ".config", "atelier", "config.toml"), nil
	}
	return "", ErrNoConfigDir
}

// TrustStore returns the store of trusted workspace files, kept next to the
// user's config file.
func (o LoadOptions) TrustStore() (*TrustStore, error) {
	user, err := o.UserFile()
	if err != nil {
		return nil, fmt.Errorf("open trust store: %w", err)
	}
	return NewTrustStore(filepath.Join(filepath.Dir(user), TrustFileName)), nil
}

// Load reads the user's config and, when the operator trusted it, the
// workspace's, lays the workspace's over the user's key by key, checks
// everything and fills in defaults. A missing file is no error. When
// anything is wrong it returns a nil Config and an *Error listing every
// problem with its file, line and key; nothing is changed on disk either
// way.
func Load(opts LoadOptions) (*Config, error) {
	env := opts.getenv()
	home := env("HOME")
	var (
		layers  []layer
		probs   []Problem
		notices []Notice
	)
	userPath, userErr := opts.UserFile()
	if userErr == nil {
		l, ps := loadFile(userPath, home)
		if s, ok := l["triggers"]; ok {
			ps = append(ps, s.problem("triggers", KindValue,
				`triggers belong to a workspace: write them here as [[workspaces."/path/to/workspace".triggers]], or as [[triggers]] in the workspace's .atelier.toml`))
			delete(l, "triggers")
		}
		layers, probs = append(layers, l), append(probs, ps...)
	}

	wsFile, trust := "", TrustNone
	if opts.Workspace != "" {
		var err error
		if wsFile, err = WorkspaceFile(opts.Workspace); err != nil {
			return nil, fmt.Errorf("load config: %w", err)
		}
		data, found, err := readFile(wsFile)
		switch {
		case err != nil:
			probs = append(probs, Problem{File: wsFile, Kind: KindRead, Msg: err.Error()})
		case found:
			var n *Notice
			covered, _, cerr := trustContent(wsFile, data, true)
			if cerr != nil {
				probs = append(probs, Problem{File: wsFile, Kind: KindRead, Msg: cerr.Error()})
				break
			}
			trust, n = workspaceTrust(opts, userErr, wsFile, covered)
			if n != nil {
				notices = append(notices, *n)
			}
			if trust == TrustTrusted {
				l, ps := parseFile(wsFile, data, home)
				if s, ok := l["workspaces"]; ok {
					ps = append(ps, s.problem("workspaces", KindValue,
						"only your own config.toml keeps tables per workspace: this file's triggers are written [[triggers]]"))
					delete(l, "workspaces")
				}
				if n := dropUserOnly(l, wsFile); n != nil {
					notices = append(notices, *n)
				}
				layers, probs = append(layers, l), append(probs, ps...)
			}
		}
	}
	if len(probs) == 0 {
		merged := merge(layers...)
		cfg, ps := build(merged)
		if len(ps) == 0 {
			cfg.Triggers, ps = workspaceTriggers(cfg, merged, opts.Workspace)
		}
		if len(ps) == 0 {
			cfg.Notices = notices
			cfg.UserFile = userPath
			cfg.WorkspaceFile = wsFile
			cfg.WorkspaceTrust = trust
			cfg.env = env
			return cfg, nil
		}
		probs = ps
	}
	sortProblems(probs)
	return nil, &Error{Problems: probs}
}

// userOnly are the keys only the user's own file may set: they run a
// program on the operator's machine by themselves, with no session, no
// approval and no container around it. A workspace's file, even trusted,
// may have been written by an agent working in the workspace.
//
// [instances] root and setup are the user's too: where instances go on the
// operator's disk, and a command run in each new instance with no approval.
var userOnly = []string{"notify.command", "instances.root", "instances.setup"}

// dropUserOnly removes the userOnly keys from a workspace file's settings
// and words the notice that says so, or returns nil when it set none.
func dropUserOnly(l layer, file string) *Notice {
	var said []string
	for _, k := range userOnly {
		if s, ok := l[k]; ok {
			delete(l, k)
			said = append(said, fmt.Sprintf("%s (line %d)", k, s.at.Line))
		}
	}
	if len(said) == 0 {
		return nil
	}
	return &Notice{Kind: NoticeUserOnly, File: file,
		Text: fmt.Sprintf("%s sets %s, which is ignored: only your own config.toml may name a program that runs by itself or where instances go.",
			file, strings.Join(said, ", "))}
}

// workspaceTrust decides whether the workspace file's content, as read, is
// trusted, and words the notice when it is not.
func workspaceTrust(opts LoadOptions, userErr error, file string, data []byte) (TrustState, *Notice) {
	const ignored = "its agents, policies, URLs and key names are ignored."
	store, err := opts.TrustStore()
	if userErr != nil {
		err = userErr
	}
	var state TrustState
	if err == nil {
		state, err = store.stateOf(file, data)
	}
	switch {
	case err != nil:
		return TrustUntrusted, &Notice{Kind: NoticeTrustUnread, File: file,
			Text: fmt.Sprintf("cannot check whether %s is trusted (%v); %s", file, err, ignored)}
	case state == TrustChanged:
		return state, &Notice{Kind: NoticeChanged, File: file,
			Text: fmt.Sprintf("%s changed since it was trusted (or a file under %s/ beside it did); %s Run `atelier trust` to trust it again.", file, WorkspaceDirName, ignored)}
	case state == TrustUntrusted:
		return state, &Notice{Kind: NoticeUntrusted, File: file,
			Text: fmt.Sprintf("%s is not trusted; %s Run `atelier trust` to trust it.", file, ignored)}
	}
	return state, nil
}

// loadFile reads and checks one config file; a missing file is empty.
func loadFile(path, home string) (layer, []Problem) {
	data, found, err := readFile(path)
	if err != nil {
		return nil, []Problem{{File: path, Kind: KindRead, Msg: err.Error()}}
	}
	if !found {
		return nil, nil
	}
	return parseFile(path, data, home)
}

// readFile reads a config file, refusing what cannot be one.
func readFile(path string) (data []byte, found bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read config: %w", err)
	}
	// Only read: closing it cannot lose anything.
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("read config: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("read config: not a regular file")
	}
	data, err = io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, false, fmt.Errorf("read config: %w", err)
	}
	if len(data) > maxFileSize {
		return nil, false, fmt.Errorf("read config: larger than %s; this is not a config file", formatSize(maxFileSize))
	}
	return data, true, nil
}

// parseFile parses and checks one file's content.
func parseFile(path string, data []byte, home string) (l layer, probs []Problem) {
	c := &fileCtx{problems: problems{file: path}, dir: filepath.Dir(path), home: home, set: layer{}}
	// A byte order mark (some Windows editors write one) is not TOML; it
	// sits on line 1, so cutting it leaves every line number as it was,
	// and columns as an editor shows them.
	src := strings.TrimPrefix(string(data), "\uFEFF")
	var doc map[string]any
	if err := decode(src, &doc); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg := pe.Message
			if msg == "" {
				msg = pe.Error()
			}
			at := syntaxPos(src, pe.Position)
			return nil, []Problem{{File: path, Line: at.Line, Col: at.Col,
				Kind: KindSyntax, Msg: "invalid TOML: " + msg}}
		}
		return nil, []Problem{{File: path, Kind: KindSyntax, Msg: "invalid TOML: " + err.Error()}}
	}
	c.pos = scanPositions(src)
	c.root(doc)
	return c.set, c.list
}

// syntaxPos places a parse error. The parser counts an unexpected line end
// as the start of the next line; its byte offset tells the line it ends.
func syntaxPos(src string, p toml.Position) pos {
	if p.Start >= 0 && p.Start < len(src) {
		s := &keyScanner{src: src}
		s.lineStart = lineStarts(src)
		if at := s.posAt(p.Start); at.Line == p.Line || at.Line == p.Line-1 {
			return at
		}
	}
	return pos{Line: p.Line, Col: p.Col}
}

// decode parses TOML, turning a parser panic (a bug, but one a hostile file
// must not turn into a crash) into an error.
func decode(src string, doc *map[string]any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parser failure: %v", r)
		}
	}()
	_, err = toml.Decode(src, doc)
	return err
}

// sortProblems orders problems by file (in the order files were read),
// then by position.
func sortProblems(ps []Problem) {
	order := map[string]int{}
	for _, p := range ps {
		if _, ok := order[p.File]; !ok {
			order[p.File] = len(order)
		}
	}
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if a.File != b.File {
			return order[a.File] - order[b.File]
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
}
