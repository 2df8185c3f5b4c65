package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/internal/testreq"
)

// servedDocument is the OpenAPI document as the rig's server serves it.
func servedDocument(t *testing.T, r *rig) []byte {
	t.Helper()
	resp, err := (&http.Client{Transport: r.transport()}).Get("http://atelier/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %s", resp.StatusCode, b)
	}
	return b
}

// redoclyProblem is one problem of `redocly lint --format json`.
type redoclyProblem struct {
	RuleID   string `json:"ruleId"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Location []struct {
		Pointer string `json:"pointer"`
	} `json:"location"`
}

// TestOpenAPILint lints the document the running server serves with
// Redocly CLI (.ci/setup.d/redocly.sh installs it) and its recommended
// rules (testdata/redocly.yaml): any error fails, the warnings are logged.
func TestOpenAPILint(t *testing.T) {
	bin := testreq.Binary(t, "redocly", "redocly")
	r := newRig(t, Options{})
	doc := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(doc, servedDocument(t, r), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := filepath.Abs(filepath.Join("testdata", "redocly.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctxFor(t, 2*time.Minute), bin, "lint", "--config", cfg, "--format", "json", "--max-problems", "100000", doc)
	// No telemetry, no update check: the test talks to no one.
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var report struct {
		Totals struct {
			Errors   int `json:"errors"`
			Warnings int `json:"warnings"`
		} `json:"totals"`
		Problems []redoclyProblem `json:"problems"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("redocly lint (%v) gave no report: %v\nstdout: %.2000s\nstderr: %.2000s", runErr, err, stdout.String(), stderr.String())
	}
	for _, p := range report.Problems {
		where := ""
		if len(p.Location) > 0 {
			where = p.Location[0].Pointer
		}
		if p.Severity == "error" {
			t.Errorf("redocly %s: %s at %s", p.RuleID, p.Message, where)
		} else {
			t.Logf("redocly %s %s: %s at %s", p.Severity, p.RuleID, p.Message, where)
		}
	}
	var exit *exec.ExitError
	if runErr != nil && (!errors.As(runErr, &exit) || report.Totals.Errors == 0) {
		t.Fatalf("redocly lint failed without an error in its report: %v\nstderr: %.2000s", runErr, stderr.String())
	}
	if report.Totals.Errors != 0 && !t.Failed() {
		t.Errorf("redocly counts %d errors", report.Totals.Errors)
	}
}
