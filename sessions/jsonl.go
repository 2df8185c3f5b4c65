package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/atelier-studio/atelier/internal/redact"
)

// Repair is one thing the store fixed or skipped while opening a file. The
// list of them is a session's repair report: shown, never fatal.
type Repair struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Action string `json:"action"`
}

func (r Repair) String() string {
	if r.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", r.File, r.Line, r.Action)
	}
	return fmt.Sprintf("%s: %s", r.File, r.Action)
}

// readJSONL decodes every line of file into fn. A torn last line (no
// trailing newline) is skipped, never cut: it may be a line another
// process is still writing (a big message is not written in one piece a
// reader sees whole). Only the session's owner cuts a torn tail, once it
// holds the lease (Log.CutTorn). A line that does not decode is skipped.
// Both are reported. A missing file reads as empty;
// a symbolic link or a special file is refused (an *UnsafeFileError),
// never read or cut.
func readJSONL(file stateFile, fn func(line []byte) error) ([]Repair, error) {
	f, err := file.open(os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file.name, err)
	}
	data, err := io.ReadAll(f)
	closeRead(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file.path(), err)
	}
	var repairs []Repair
	if n := len(data); n > 0 && data[n-1] != '\n' {
		cut := bytes.LastIndexByte(data, '\n') + 1
		action := fmt.Sprintf("torn last line skipped (%d bytes): still being written, or left by a crash for the session's owner to cut", n-cut)
		if file.ro != nil {
			action = fmt.Sprintf("torn last line skipped (%d bytes), not cut: %v", n-cut, file.ro)
		}
		repairs = append(repairs, Repair{File: file.name, Line: bytes.Count(data[:cut], []byte{'\n'}) + 1, Action: action})
		data = data[:cut]
	}
	line := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		raw := data[:i]
		data = data[i+1:]
		line++
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		if err := fn(raw); err != nil {
			repairs = append(repairs, Repair{File: file.name, Line: line, Action: "corrupt line skipped: " + err.Error()})
		}
	}
	return repairs, nil
}

// appender writes JSON lines to one file. Each record is one write call of a
// whole line, followed by fsync when durable, so a record is either wholly in
// the file or (after a crash) a torn tail that the next open removes.
// Secret values in a record are replaced with their markers before the
// line is written (red), so no key reaches the disk.
type appender struct {
	mu   sync.Mutex
	file stateFile
	f    *os.File
	red  *redact.Redactor
	// newline is set when the file did not end with one when it was
	// opened (a torn tail nobody cut yet): the first line written starts
	// with one, so it is never glued to the fragment.
	newline bool
}

func (a *appender) append(v any, durable bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode record for %s: %w", a.file.path(), err)
	}
	b = append(a.red.RedactJSON(b), '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		f, err := a.file.open(os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("append to %s: %w", a.file.name, err)
		}
		a.f = f
		a.newline = !endsLine(f)
	}
	if a.newline {
		b = append([]byte{'\n'}, b...)
		a.newline = false
	}
	if _, err := a.f.Write(b); err != nil {
		return fmt.Errorf("append %s: %w", a.file.path(), err)
	}
	if durable {
		if err := a.f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", a.file.path(), err)
		}
	}
	return nil
}

// endsLine reports whether f is empty or ends with a newline. A file that
// cannot be read is taken to end with one: the guard is for torn tails,
// not for errors the write reports anyway.
func endsLine(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return true
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], fi.Size()-1); err != nil {
		return true
	}
	return last[0] == '\n'
}

// cutTorn cuts a torn last line off file: the caller owns the session
// (holds its lease), so no one else is writing it, and the fragment is a
// crash's. It returns the repair, if there was one to make.
func cutTorn(file stateFile) (*Repair, error) {
	if file.ro != nil {
		return nil, nil
	}
	f, err := file.open(os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cut torn line of %s: %w", file.name, err)
	}
	defer closeRead(f)
	if endsLine(f) {
		return nil, nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("cut torn line of %s: %w", file.path(), err)
	}
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return nil, nil
	}
	cut := bytes.LastIndexByte(data, '\n') + 1
	if err := f.Truncate(int64(cut)); err != nil {
		return nil, fmt.Errorf("cut torn line of %s: %w", file.path(), err)
	}
	return &Repair{File: file.name, Line: bytes.Count(data[:cut], []byte{'\n'}) + 1,
		Action: fmt.Sprintf("torn last line cut off (%d bytes)", len(data)-cut)}, nil
}

func (a *appender) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}

// decodeStrict decodes one JSON value and refuses trailing data.
func decodeStrict(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after record")
	}
	return nil
}

// ReadFrom reads the whole lines of a log file after byte offset, calling
// fn for each, and returns the offset after the last whole line. A partial
// last line (another process is writing it) is left for the next call. The
// file is opened as OpenStateFile does: a symbolic link is refused.
func ReadFrom(path string, offset int64, fn func(line []byte)) (int64, error) {
	f, err := OpenStateFile(filepath.Dir(path), filepath.Base(path), os.O_RDONLY, 0)
	if os.IsNotExist(err) {
		return offset, nil
	}
	if err != nil {
		return offset, err
	}
	defer closeRead(f)
	fi, err := f.Stat()
	if err != nil || fi.Size() <= offset {
		return offset, err
	}
	buf := make([]byte, fi.Size()-offset)
	n, err := f.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return offset, err
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n') + 1
	for _, line := range bytes.Split(buf[:end], []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) > 0 {
			fn(line)
		}
	}
	return offset + int64(end), nil
}

// Size returns a log file's size, 0 when it does not exist (or is refused,
// as OpenStateFile refuses a symbolic link).
func Size(path string) int64 {
	f, err := OpenStateFile(filepath.Dir(path), filepath.Base(path), os.O_RDONLY, 0)
	if err != nil {
		return 0
	}
	defer closeRead(f)
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

// DecodeLine decodes one log line strictly (no trailing data).
func DecodeLine(line []byte, v any) error { return decodeStrict(line, v) }
