package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"unicode"
)

// MaxBody bounds a request body: prompts and file writes.
const MaxBody = 16 << 20

// decode reads a JSON request body into v: at most MaxBody bytes, one JSON
// value, no unknown fields. An empty body leaves v as it is.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	body := http.MaxBytesReader(w, r.Body, MaxBody)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return badRequest("request body: " + err.Error())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return badRequest("request body: more than one JSON value")
	}
	return nil
}

// idPattern is what session, interaction and queue-item ids (and session
// id prefixes) look like.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`)

// pathID returns the path value name, checked to be an id.
func pathID(r *http.Request, name string) (string, error) {
	v := r.PathValue(name)
	if !idPattern.MatchString(v) {
		return "", badRequest(fmt.Sprintf("%s %q is not a valid id", name, v))
	}
	return v, nil
}

// checkKey validates an idempotency key: short, printable, no spaces.
// maxEnv bounds the variables a client hands over: a few keys and the
// variables an agent CLI reads, never a whole environment.
const (
	maxEnvVars  = 128
	maxEnvValue = 64 << 10
)

// checkEnv checks the variables a client hands over: names as a shell
// would take them, values without NUL, within bounds.
func checkEnv(env map[string]string) error {
	if len(env) > maxEnvVars {
		return badRequest(fmt.Sprintf("env: %d variables, at most %d", len(env), maxEnvVars))
	}
	for k, v := range env {
		if !envName.MatchString(k) {
			return badRequest(fmt.Sprintf("env: %q is not a variable name", k))
		}
		if len(v) > maxEnvValue || strings.ContainsRune(v, 0) {
			return badRequest(fmt.Sprintf("env: the value of %s is longer than %d bytes or holds a NUL", k, maxEnvValue))
		}
	}
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func checkKey(key string) error {
	if len(key) > 200 {
		return badRequest("key: longer than 200 bytes")
	}
	if strings.IndexFunc(key, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) >= 0 {
		return badRequest(fmt.Sprintf("key %q: only printable characters without spaces", key))
	}
	return nil
}
