package themes

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Errors a theme file is refused with, wrapped in a *FileError.
var (
	// ErrBadColour is a token whose value is not a "#rrggbb" string.
	ErrBadColour = errors.New("not a #rrggbb colour")
	// ErrUnknownKey is a key no theme has (a typo, usually).
	ErrUnknownKey = errors.New("unknown key")
	// ErrBadValue is a key whose value has the wrong type or shape.
	ErrBadValue = errors.New("bad value")
)

// FileError is why a theme file was refused: the file, the key at fault
// ("" when the file itself cannot be read or parsed) and the cause.
type FileError struct {
	File string
	Key  string
	Err  error
}

func (e *FileError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("theme file %s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("theme file %s: key %s: %v", e.File, e.Key, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// tokenKeys are the colour keys of a theme file, in the order they are
// checked.
var tokenKeys = []string{"base", "subtle", "accent", "success", "warning", "error", "surface"}

// Load reads a user theme from a TOML file (or JSON, when the name ends in
// .json). The file may set any of the tokens (base, subtle, accent,
// success, warning, error, surface), "ansi" (all sixteen colours), "name",
// and "extends" (a built-in theme the unset tokens come from; dark when
// absent). Anything else, and any colour that is not "#rrggbb", refuses the
// whole file with a *FileError naming the key.
func Load(path string) (Palette, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Palette{}, &FileError{File: path, Err: err}
	}
	return Parse(path, data)
}

// Parse is Load on content already read; path names it in errors and
// chooses the format.
func Parse(path string, data []byte) (Palette, error) {
	doc := map[string]any{}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		err := json.Unmarshal(data, &doc)
		if err != nil {
			return Palette{}, &FileError{File: path, Err: fmt.Errorf("parse JSON: %w", err)}
		}
	} else if _, err := toml.Decode(string(data), &doc); err != nil {
		return Palette{}, &FileError{File: path, Err: fmt.Errorf("parse TOML: %w", err)}
	}
	return fromDoc(path, doc)
}

func fromDoc(path string, doc map[string]any) (Palette, error) {
	bad := func(key string, err error) (Palette, error) {
		return Palette{}, &FileError{File: path, Key: key, Err: err}
	}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	known := append([]string{"name", "extends", "ansi"}, tokenKeys...)
	for _, k := range keys {
		if !slices.Contains(known, k) {
			return bad(k, fmt.Errorf("%w (known: %s)", ErrUnknownKey, strings.Join(known, ", ")))
		}
	}
	base := Dark()
	if v, ok := doc["extends"]; ok {
		name, isStr := v.(string)
		if !isStr {
			return bad("extends", fmt.Errorf("%w: want the name of a built-in theme", ErrBadValue))
		}
		p, err := Named(name)
		if err != nil {
			return bad("extends", err)
		}
		base = p
	}
	p := base
	p.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if v, ok := doc["name"]; ok {
		name, isStr := v.(string)
		if !isStr || name == "" {
			return bad("name", fmt.Errorf("%w: want a non-empty string", ErrBadValue))
		}
		p.Name = name
	}
	fields := map[string]*string{"base": &p.Base, "subtle": &p.Subtle, "accent": &p.Accent, "success": &p.Success,
		"warning": &p.Warning, "error": &p.Error, "surface": &p.Surface}
	for _, k := range tokenKeys {
		v, ok := doc[k]
		if !ok {
			continue
		}
		c, err := colour(v)
		if err != nil {
			return bad(k, err)
		}
		*fields[k] = c
	}
	if v, ok := doc["ansi"]; ok {
		list, isList := v.([]any)
		if !isList || len(list) != 16 {
			return bad("ansi", fmt.Errorf("%w: want a list of 16 colours", ErrBadValue))
		}
		for i, item := range list {
			c, err := colour(item)
			if err != nil {
				return bad(fmt.Sprintf("ansi[%d]", i), err)
			}
			p.ANSI[i] = c
		}
	}
	return p, nil
}

func colour(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%w: %v is not a string", ErrBadColour, v)
	}
	if !isHex(s) {
		return "", fmt.Errorf("%w: %q", ErrBadColour, s)
	}
	return s, nil
}
