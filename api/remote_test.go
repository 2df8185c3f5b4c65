package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// tcpRig serves the API of a real engine through the TCP guard.
func tcpRig(t *testing.T, o RemoteOptions) (*rig, *httptest.Server) {
	t.Helper()
	r := newRig(t, Options{})
	if o.Hosts == nil {
		o.Hosts = []string{"127.0.0.1", "localhost", "::1"}
	}
	ts := httptest.NewServer(newDeclaredAnswers(t, r.srv, Remote(r.srv, o)))
	t.Cleanup(ts.Close)
	return r, ts
}

// call sends one request and returns the status, the problem's code and
// the response.
func call(t *testing.T, ts *httptest.Server, method, path, body string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }() // read below
	var p struct {
		Code string `json:"code"`
	}
	if strings.Contains(resp.Header.Get("Content-Type"), "problem") {
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return resp.StatusCode, p.Code, resp.Header
}

func bearer(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

// TestTCPGuard: the token, the Host header and the settings gate of a TCP
// listener.
func TestTCPGuard(t *testing.T) {
	r, ts := tcpRig(t, RemoteOptions{Token: testToken, Hosts: []string{"127.0.0.1", "localhost", "::1", "box.example"}})
	id := createOver(t, ts)
	for _, c := range []struct {
		name, method, path, body string
		hdr                      map[string]string
		status                   int
		code                     string
	}{
		{"no token", "GET", "/v1/health", "", nil, 401, "unauthorized"},
		{"wrong token", "GET", "/v1/health", "", bearer(strings.Repeat("0", 64)), 401, "unauthorized"},
		{"a prefix of the token", "GET", "/v1/health", "", bearer(testToken[:10]), 401, "unauthorized"},
		{"basic, not bearer", "GET", "/v1/health", "", map[string]string{"Authorization": "Basic " + testToken}, 401, "unauthorized"},
		{"the token", "GET", "/v1/health", "", bearer(testToken), 200, ""},
		{"another host", "GET", "/v1/health", "", map[string]string{"Authorization": "Bearer " + testToken, "Host": "evil.example:80"}, 421, "misdirected_host"},
		{"another host without a token", "GET", "/v1/health", "", map[string]string{"Host": "evil.example"}, 421, "misdirected_host"},
		{"localhost", "GET", "/v1/health", "", map[string]string{"Authorization": "Bearer " + testToken, "Host": "LOCALHOST:1"}, 200, ""},
		{"[::1]", "GET", "/v1/health", "", map[string]string{"Authorization": "Bearer " + testToken, "Host": "[::1]:7420"}, 200, ""},
		{"an allowed name", "GET", "/v1/health", "", map[string]string{"Authorization": "Bearer " + testToken, "Host": "box.example."}, 200, ""},
		{"set the model", "POST", "/v1/sessions/" + id + "/model", `{"model":"m"}`, bearer(testToken), 403, "settings_not_allowed"},
		{"set the approval", "POST", "/v1/sessions/" + id + "/approval", `{"policy":"auto"}`, bearer(testToken), 403, "settings_not_allowed"},
		{"revoke a grant", "POST", "/v1/sessions/" + id + "/grants/revoke", `{"grant":"exec:ls"}`, bearer(testToken), 403, "settings_not_allowed"},
		{"create with an agent", "POST", "/v1/sessions", `{"task":"x","agent":"demo"}`, bearer(testToken), 403, "settings_not_allowed"},
		{"create with a policy", "POST", "/v1/sessions", `{"task":"x","approval":"auto"}`, bearer(testToken), 403, "settings_not_allowed"},
		{"create with defaults", "POST", "/v1/sessions", `{"task":"x","agent":""}`, bearer(testToken), 201, ""},
		{"a malformed create is the handler's", "POST", "/v1/sessions", `{"task":`, bearer(testToken), 400, "bad_request"},
		{"a control", "POST", "/v1/sessions/" + id + "/archive", "", bearer(testToken), 200, ""},
	} {
		status, code, _ := call(t, ts, c.method, c.path, c.body, c.hdr)
		if status != c.status || code != c.code {
			t.Errorf("%s: %d %q, want %d %q", c.name, status, code, c.status, c.code)
		}
	}
	if got := r.eng.Sessions(); len(got) != 2 {
		t.Errorf("%d sessions, want 2 (refused creates made none)", len(got))
	}
}

// createOver creates a session through the guard and returns its id.
func createOver(t *testing.T, ts *httptest.Server) string {
	t.Helper()
	req, err := http.NewRequest("POST", ts.URL+"/v1/sessions", strings.NewReader(`{"task":"a task"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }() // read below
	var s struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d, %v", resp.StatusCode, err)
	}
	return s.ID
}

// TestTCPAllowSettings: with AllowSettings the settings routes reach the
// engine.
func TestTCPAllowSettings(t *testing.T) {
	_, ts := tcpRig(t, RemoteOptions{Token: testToken, AllowSettings: true})
	id := createOver(t, ts)
	// The engine answers (a session that has not started refuses the
	// change): the guard let it through.
	if status, code, _ := call(t, ts, "POST", "/v1/sessions/"+id+"/approval", `{"policy":"auto"}`, bearer(testToken)); code != "transition_refused" {
		t.Errorf("approval with --allow-settings: %d %s", status, code)
	}
	if status, code, _ := call(t, ts, "POST", "/v1/sessions", `{"task":"x","approval":"read-only"}`, bearer(testToken)); status != 201 {
		t.Errorf("create with a policy with --allow-settings: %d %s", status, code)
	}
}

// TestTCPNoToken: a guard without a token refuses everything.
func TestTCPNoToken(t *testing.T) {
	_, ts := tcpRig(t, RemoteOptions{})
	for _, h := range []map[string]string{nil, bearer("")} {
		if status, _, _ := call(t, ts, "GET", "/v1/health", "", h); status != 401 {
			t.Errorf("a guard with no token answered %d to %v", status, h)
		}
	}
}

// TestTCPCORS: preflights are answered for the configured origin only, and
// no origin gets CORS headers without one.
func TestTCPCORS(t *testing.T) {
	const origin = "https://app.example"
	preflight := func(o string) map[string]string {
		return map[string]string{"Origin": o, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"}
	}
	_, ts := tcpRig(t, RemoteOptions{Token: testToken, CORSOrigin: origin})
	status, _, h := call(t, ts, "OPTIONS", "/v1/sessions", "", preflight(origin))
	if status != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != origin ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("the origin's preflight: %d %v", status, h)
	}
	// A guarded file write from the page: PUT with If-Match, and the
	// read's ETag visible to its script.
	status, _, h = call(t, ts, "OPTIONS", "/v1/instances/main/files/content", "",
		map[string]string{"Origin": origin, "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "authorization, if-match"})
	if status != http.StatusNoContent || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "PUT") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "If-Match") || !strings.Contains(h.Get("Access-Control-Expose-Headers"), "ETag") {
		t.Errorf("the origin's preflight of a guarded write: %d %v", status, h)
	}
	status, _, h = call(t, ts, "OPTIONS", "/v1/sessions", "", preflight("https://evil.example"))
	if status != http.StatusUnauthorized || h.Get("Access-Control-Allow-Origin") != "" || h.Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("another origin's preflight: %d %v", status, h)
	}
	hdr := bearer(testToken)
	hdr["Origin"] = origin
	if status, _, h = call(t, ts, "GET", "/v1/health", "", hdr); status != 200 || h.Get("Access-Control-Allow-Origin") != origin {
		t.Errorf("the origin's request: %d %v", status, h)
	}

	_, plain := tcpRig(t, RemoteOptions{Token: testToken})
	status, _, h = call(t, plain, "OPTIONS", "/v1/sessions", "", preflight(origin))
	if status != http.StatusUnauthorized || h.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a preflight without --cors: %d %v", status, h)
	}
}

// TestPeerSpawnedCaller: a caller the host started cannot answer
// interactions, set the approval policy or create with a policy; others
// can, and a failed check refuses.
func TestPeerSpawnedCaller(t *testing.T) {
	var spawned bool
	var checkErr error
	r := newRig(t, Options{SpawnedCaller: func(*http.Request) (bool, error) { return spawned, checkErr }})
	ts := httptest.NewServer(newDeclaredAnswers(t, r.srv, r.srv))
	t.Cleanup(ts.Close)
	id := createOver(t, ts)
	interaction := "/v1/sessions/" + id + "/interactions/" + strings.Repeat("a", 16)
	cases := []struct {
		name, path, body string
		agent, other     int // the status for a spawned caller, and for another (0: any but the refusal)
	}{
		{"approval", "/v1/sessions/" + id + "/approval", `{"policy":"auto"}`, 403, 0},
		{"an answer", interaction, `{"decision":"allow_once"}`, 403, 0},
		{"create with a policy", "/v1/sessions", `{"task":"x","access":"full"}`, 403, 0},
		{"create with defaults", "/v1/sessions", `{"task":"x"}`, 201, 201},
		{"a prompt", "/v1/sessions/" + id + "/send", `{"text":"hi"}`, 0, 0},
	}
	for _, who := range []struct {
		name    string
		spawned bool
		err     error
	}{{"spawned", true, nil}, {"other", false, nil}, {"unreadable", false, errors.New("gone")}} {
		spawned, checkErr = who.spawned, who.err
		for _, c := range cases {
			status, code, _ := call(t, ts, "POST", c.path, c.body, nil)
			want := c.other
			if who.spawned || who.err != nil {
				want = c.agent
			}
			refused := status == 403 && code == "agent_cannot_approve"
			if want == 403 && !refused || want != 403 && refused || want != 0 && want != 403 && status != want {
				t.Errorf("%s, %s: %d %s, want %d", who.name, c.name, status, code, want)
			}
		}
	}
}
