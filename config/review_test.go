package config

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestReview: a review shows the content and digest to trust, and, once
// the file changed after it was trusted, the content trusted before.
func TestReview(t *testing.T) {
	f := newFixture(t)
	s := f.store()
	if _, err := s.Review(f.ws); !errors.Is(err, ErrNoWorkspaceFile) {
		t.Fatalf("review without a file: %v", err)
	}
	first := lines(`default_agent = "demo"`)
	f.writeWorkspace(first)
	r, err := s.Review(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	if r.State != TrustUntrusted || string(r.Content) != first || r.Digest != Digest([]byte(first)) ||
		r.Previous != nil || r.File != f.wsFile() || !r.TrustedAt.IsZero() {
		t.Fatalf("review of an untrusted file: %+v", r)
	}
	if err := s.TrustDigest(f.ws, r.Digest); err != nil {
		t.Fatal(err)
	}
	if r, err = s.Review(f.ws); err != nil || r.State != TrustTrusted || r.TrustedAt.IsZero() {
		t.Fatalf("review of the trusted file: %+v, %v", r, err)
	}
	second := first + lines("[engine]", "workers = 2")
	f.writeWorkspace(second)
	r, err = s.Review(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	if r.State != TrustChanged || string(r.Previous) != first || string(r.Content) != second {
		t.Fatalf("review of the changed file: state %s, previous %q", r.State, r.Previous)
	}
	// The file changes again between the review and the answer.
	f.writeWorkspace(second + lines("# more"))
	if err := s.TrustDigest(f.ws, r.Digest); !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("trusting what was not shown: %v", err)
	}
}

// TestReviewOfOldEntry: a trust entry written before the content was kept
// (or of a file too large to keep) gives no previous content, and a large
// file is trusted without keeping it.
func TestReviewOfOldEntry(t *testing.T) {
	f := newFixture(t)
	s := f.store()
	first := lines(`default_agent = "demo"`)
	f.writeWorkspace(first)
	file, err := WorkspaceFile(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	// An entry as an older build wrote it: no content.
	old, err := json.Marshal(trustDoc{Version: trustVersion, Files: map[string]trustEntry{
		file: {SHA256: Digest([]byte(first)), TrustedAt: time.Now().UTC()}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(), old, 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Review(f.ws); err != nil || r.State != TrustTrusted {
		t.Fatalf("review of an old entry: %+v, %v", r, err)
	}
	f.writeWorkspace(lines(`default_agent = "other"`))
	r, err := s.Review(f.ws)
	if err != nil {
		t.Fatalf("review after an old entry: %v", err)
	}
	if r.State != TrustChanged || r.Previous != nil {
		t.Errorf("review after an old entry: state %s, previous %q", r.State, r.Previous)
	}

	f.writeWorkspace("# " + strings.Repeat("x", maxKeptContent) + "\n")
	f.trust()
	f.writeWorkspace(lines(`default_agent = "demo"`))
	if r, err := s.Review(f.ws); err != nil || r.State != TrustChanged || r.Previous != nil {
		t.Errorf("review after a large file: %+v, %v", r.State, err)
	}
}
