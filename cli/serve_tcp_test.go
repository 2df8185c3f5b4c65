package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// The tests of this file run `atelier serve --listen` and the socket's
// caller check (SO_PEERCRED) with the real binary.

// httpCall sends one request and returns the status, the problem's code
// and the headers.
func httpCall(t *testing.T, c *http.Client, method, url, body string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = resp.Body.Close() }() // read below
	var p struct {
		Code string `json:"code"`
		ID   string `json:"id"`
	}
	// A body that is not JSON (a 204) leaves the code empty.
	_ = json.NewDecoder(resp.Body).Decode(&p)
	if p.Code == "" {
		p.Code = p.ID
	}
	return resp.StatusCode, p.Code, resp.Header
}

func unixClient(socket string) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}}}
}

// loopbackAddr is a loopback address with a port nothing listens on.
func loopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

var tokenLine = regexp.MustCompile(`(?m)^token: ([0-9a-f]{64}) \(also in (.+)\)$`)

// TestServeTCP: `serve --detach --listen` prints the token once, keeps it
// 0600 in the configuration folder and out of the log; TCP needs it, checks
// the Host header and keeps settings from its clients; the socket needs
// none. Restarted with --cors and --allow-settings, the token is reused,
// the origin's preflight is answered and settings are allowed.
func TestServeTCP(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	addr := loopbackAddr(t)
	r := b.run("serve", "--detach", "--json", "--listen", addr).want(t, ExitOK)
	m := tokenLine.FindStringSubmatch(r.err)
	if m == nil {
		t.Fatalf("no token line in:\n%s", r.err)
	}
	token, file := m[1], m[2]
	if want := filepath.Join(filepath.Dir(b.config), "token"); file != want {
		t.Errorf("the token is in %s, want %s", file, want)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the token file: %v, %v", fi, err)
	}
	if data, err := os.ReadFile(file); err != nil || strings.TrimSpace(string(data)) != token {
		t.Errorf("the token file holds %q, %v", data, err)
	}
	st := b.hostStatus()
	// Driven from another machine, it stays until stopped, and says so.
	if r := b.run("serve", "--status").want(t, ExitOK); !strings.Contains(r.out, "listening on TCP: "+addr) ||
		!strings.Contains(r.out, "exits when idle: never (until stopped)") {
		t.Errorf("serve --status of a host with a listener:\n%s", r.out)
	}

	c := &http.Client{Timeout: 30 * time.Second}
	base := "http://" + addr
	auth := map[string]string{"Authorization": "Bearer " + token}
	for _, k := range []struct {
		name, method, path, body string
		hdr                      map[string]string
		status                   int
		code                     string
	}{
		{"no token", "GET", "/v1/health", "", nil, 401, "unauthorized"},
		{"a wrong token", "GET", "/v1/health", "", map[string]string{"Authorization": "Bearer " + strings.Repeat("f", 64)}, 401, "unauthorized"},
		{"the token", "GET", "/v1/health", "", auth, 200, ""},
		{"another Host", "GET", "/v1/health", "", map[string]string{"Authorization": "Bearer " + token, "Host": "rebound.example"}, 421, "misdirected_host"},
		{"localhost", "GET", "/v1/sessions", "", map[string]string{"Authorization": "Bearer " + token, "Host": "localhost"}, 200, ""},
	} {
		status, code, _ := httpCall(t, c, k.method, base+k.path, k.body, k.hdr)
		if status != k.status || (k.code != "" && code != k.code) {
			t.Errorf("%s: %d %q, want %d %q", k.name, status, code, k.status, k.code)
		}
	}
	status, id, _ := httpCall(t, c, "POST", base+"/v1/sessions", `{"task":"from afar"}`, auth)
	if status != http.StatusCreated || id == "" {
		t.Fatalf("create over TCP: %d %q", status, id)
	}
	for _, path := range []string{"/model", "/approval"} {
		body := map[string]string{"/model": `{"model":"other"}`, "/approval": `{"policy":"auto"}`}[path]
		if status, code, _ := httpCall(t, c, "POST", base+"/v1/sessions/"+id+path, body, auth); status != 403 || code != "settings_not_allowed" {
			t.Errorf("POST %s over TCP: %d %s", path, status, code)
		}
	}
	if status, code, _ := httpCall(t, c, "POST", base+"/v1/sessions", `{"task":"x","approval":"auto"}`, auth); status != 403 || code != "settings_not_allowed" {
		t.Errorf("create with a policy over TCP: %d %s", status, code)
	}
	// A control over TCP is recorded with the peer's address: the token is
	// all the host knows of who sent it.
	if status, _, _ := httpCall(t, c, "POST", base+"/v1/sessions/"+id+"/send", `{"text":"from afar too"}`, auth); status != 200 {
		t.Fatalf("send over TCP: %d", status)
	}
	if sent, ok := b.request(id, sessions.CtlPrompt, "from afar too"); !ok || !strings.HasPrefix(sent.User, "tcp 127.0.0.1:") {
		t.Errorf("the TCP send's user: %+v (found %v)", sent, ok)
	}
	status, _, h := httpCall(t, c, "OPTIONS", base+"/v1/sessions", "", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST"})
	if h.Get("Access-Control-Allow-Origin") != "" || status == http.StatusNoContent {
		t.Errorf("a preflight without --cors: %d %v", status, h)
	}
	if status, _, _ := httpCall(t, unixClient(st.Socket), "GET", "http://atelier/v1/sessions", "", nil); status != 200 {
		t.Errorf("the socket without a token: %d", status)
	}
	// Without --allow-settings a TCP client changes no policy, so no
	// protected path either.
	protectedWrites(t, c, base, b.ws, auth, 403)
	if log, err := os.ReadFile(filepath.Join(b.ws, ".state", "engine.log")); err != nil || bytes.Contains(log, []byte(token)) ||
		!strings.Contains(string(log), "http://"+addr) {
		t.Errorf("the host's log (%v) holds the token, or does not name the listener:\n%s", err, log)
	}
	b.run("serve", "--stop").want(t, ExitOK)

	const origin = "https://app.example"
	r = b.run("serve", "--detach", "--listen", addr, "--cors", origin, "--allow-settings", "--allow-host", "box.example").want(t, ExitOK)
	if m := tokenLine.FindStringSubmatch(r.err); m == nil || m[1] != token {
		t.Errorf("the restarted host's token line (want the same token):\n%s", r.err)
	}
	status, _, h = httpCall(t, c, "OPTIONS", base+"/v1/sessions", "", map[string]string{"Origin": origin, "Access-Control-Request-Method": "POST"})
	if status != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != origin {
		t.Errorf("the origin's preflight: %d %v", status, h)
	}
	status, _, h = httpCall(t, c, "OPTIONS", base+"/v1/sessions", "", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
	if h.Get("Access-Control-Allow-Origin") != "" || status == http.StatusNoContent {
		t.Errorf("another origin's preflight: %d %v", status, h)
	}
	if status, code, _ := httpCall(t, c, "POST", base+"/v1/sessions/"+id+"/approval", `{"policy":"auto"}`, map[string]string{"Authorization": "Bearer " + token, "Host": "box.example"}); code == "settings_not_allowed" || code == "misdirected_host" {
		t.Errorf("approval with --allow-settings from an allowed host: %d %s", status, code)
	}
	b.run("serve", "--stop").want(t, ExitOK)
}

// TestServeTCPRefused: an address that is not loopback without TLS, and
// TCP flags without --listen, are usage errors; nothing starts.
func TestServeTCPRefused(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	for _, args := range [][]string{
		{"serve", "--listen", "0.0.0.0:0"},
		{"serve", "--detach", "--listen", ":7420"},
		{"serve", "--listen", "127.0.0.1:0", "--tls-cert", "c.pem"},
		{"serve", "--cors", "https://app.example"},
		{"serve", "--listen", "127.0.0.1:0", "--cors", "app.example"},
		{"serve", "--status", "--listen", "127.0.0.1:0"},
	} {
		r := b.run(args...).want(t, ExitUsage)
		if args[2] == "0.0.0.0:0" && !strings.Contains(r.err, "TLS") {
			t.Errorf("%v says %q", args, r.err)
		}
	}
	if st := b.hostStatus(); st.Running {
		t.Errorf("a host runs: %+v", st)
	}
}

// peerHelper is a program that POSTs a body to a path, over a unix
// socket or, when its first argument is a URL, over TCP with the token in
// its fourth, and prints the status and the problem's code.
const peerHelper = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
)

func main() {
	sock, base := os.Args[1], "http://atelier"
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	if strings.HasPrefix(sock, "http://") {
		c, base = http.DefaultClient, sock
	}
	req, err := http.NewRequest("POST", base+os.Args[2], strings.NewReader(os.Args[3]))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	req.Header.Set("Content-Type", "application/json")
	if len(os.Args) > 4 {
		req.Header.Set("Authorization", "Bearer "+os.Args[4])
	}
	resp, err := c.Do(req)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	var p struct{ Code string }
	_ = json.NewDecoder(resp.Body).Decode(&p)
	fmt.Println(resp.StatusCode, p.Code)
}
`

// buildPeerHelper builds peerHelper and returns its path.
func buildPeerHelper(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), peerHelper)
	helper := filepath.Join(dir, "peer")
	build := exec.Command("go", "build", "-o", helper, "main.go")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the helper: %v\n%s", err, out)
	}
	return helper
}

// commandCannotApprove has session id's command (the peer helper,
// reaching the host as reach says: the socket, or a URL and the token)
// set the approval policy and answer an interaction, and requires both
// refused with 403 agent_cannot_approve. It returns the two paths.
func commandCannotApprove(t *testing.T, uc *http.Client, id, helper string, reach ...string) (approval, answer string) {
	t.Helper()
	approval = "/v1/sessions/" + id + "/approval"
	answer = "/v1/sessions/" + id + "/interactions/" + strings.Repeat("a", 16)
	for _, k := range []struct{ path, body string }{
		{approval, `{"policy":"auto"}`},
		{answer, `{"decision":"allow_once"}`},
	} {
		argv := append([]string{helper, reach[0], k.path, k.body}, reach[1:]...)
		if out := sessionRuns(t, uc, id, argv...); out != "403 agent_cannot_approve" {
			t.Errorf("a session's command POSTs %s through %s: %s", k.path, reach[0], out)
		}
	}
	return approval, answer
}

// sessionRuns has session id run argv through the host's socket and
// returns what it printed.
func sessionRuns(t *testing.T, uc *http.Client, id string, argv ...string) string {
	t.Helper()
	a, err := json.Marshal(argv)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Stdout string `json:"stdout"`
		Stderr string `json:"stderr"`
	}
	req := `{"session":"` + id + `","argv":` + string(a) + `,"timeout":"30s"}`
	resp, err := uc.Post("http://atelier/v1/instances/main/exec", "application/json", strings.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	derr := json.NewDecoder(resp.Body).Decode(&res)
	if err := resp.Body.Close(); err != nil || derr != nil || resp.StatusCode != 200 {
		t.Fatalf("exec: %d, %v, %v", resp.StatusCode, derr, err)
	}
	return strings.TrimSpace(res.Stdout + res.Stderr)
}

// TestServePeerCred: a command a session runs (a descendant of the host)
// cannot set the approval policy or answer an interaction over the socket;
// this test, which did not come from the host, can.
func TestServePeerCred(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	helper := buildPeerHelper(t)
	st := b.detach()
	uc := unixClient(st.Socket)
	status, id, _ := httpCall(t, uc, "POST", "http://atelier/v1/sessions", `{"task":"a task"}`, nil)
	if status != http.StatusCreated {
		t.Fatalf("create: %d", status)
	}
	approval, answer := commandCannotApprove(t, uc, id, helper, st.Socket)
	// From this test: the engine answers (a session that has not started
	// refuses a policy change; the interaction does not exist).
	if status, code, _ := httpCall(t, uc, "POST", "http://atelier"+approval, `{"policy":"auto"}`, nil); code == "agent_cannot_approve" {
		t.Errorf("the test's own approval change: %d %s", status, code)
	}
	if status, code, _ := httpCall(t, uc, "POST", "http://atelier"+answer, `{"decision":"allow_once"}`, nil); status != 404 {
		t.Errorf("the test's own answer: %d %s", status, code)
	}
	protectedWrites(t, uc, "http://atelier", b.ws, nil, 200)
	if out := sessionRuns(t, uc, id, helper, st.Socket, mkdirPath, `{"path":".atelier/agent"}`); out != "403 protected_path" {
		t.Errorf("a session's command makes a folder in .atelier/: %s", out)
	}
	b.run("serve", "--stop").want(t, ExitOK)
}

// TestServeTCPPeer: over loopback TCP with the token, a command a session
// runs (which can read the token file) still cannot answer an interaction
// or set the approval policy; this test, which the host did not start,
// can, as an attached studio must.
func TestServeTCPPeer(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	helper := buildPeerHelper(t)
	addr := loopbackAddr(t)
	r := b.run("serve", "--detach", "--listen", addr, "--allow-settings").want(t, ExitOK)
	m := tokenLine.FindStringSubmatch(r.err)
	if m == nil {
		t.Fatalf("no token line in:\n%s", r.err)
	}
	token := m[1]
	uc := unixClient(b.hostStatus().Socket)
	status, id, _ := httpCall(t, uc, "POST", "http://atelier/v1/sessions", `{"task":"a task"}`, nil)
	if status != http.StatusCreated {
		t.Fatalf("create: %d", status)
	}
	approval, answer := commandCannotApprove(t, uc, id, helper, "http://"+addr, token)
	c := &http.Client{Timeout: 30 * time.Second}
	auth := map[string]string{"Authorization": "Bearer " + token}
	if status, code, _ := httpCall(t, c, "POST", "http://"+addr+approval, `{"policy":"auto"}`, auth); code == "agent_cannot_approve" {
		t.Errorf("the test's own approval change over TCP: %d %s", status, code)
	}
	if status, code, _ := httpCall(t, c, "POST", "http://"+addr+answer, `{"decision":"allow_once"}`, auth); status != 404 {
		t.Errorf("the test's own answer over TCP: %d %s, want 404 (no such interaction)", status, code)
	}
	protectedWrites(t, c, "http://"+addr, b.ws, auth, 200)
	if out := sessionRuns(t, uc, id, helper, "http://"+addr, mkdirPath, `{"path":".atelier/agent"}`, token); out != "403 protected_path" {
		t.Errorf("a session's command makes a folder in .atelier/ over TCP: %s", out)
	}
	b.run("serve", "--stop").want(t, ExitOK)
}

// mkdirPath is the route that makes a folder in the main instance.
const mkdirPath = "/v1/instances/main/files/mkdir"

// protectedWrites has the operator save .atelier.toml through base and
// checks the answer (200 saved, or 403 protected_path) and the file.
func protectedWrites(t *testing.T, c *http.Client, base, ws string, hdr map[string]string, want int) {
	t.Helper()
	cfg := filepath.Join(ws, ".atelier.toml")
	before, _ := os.ReadFile(cfg) // absent is fine: it is compared below
	body := "# saved by the operator " + strconv.Itoa(want) + "\n"
	status, code, _ := httpCall(t, c, "PUT", base+"/v1/instances/main/files/content?path=.atelier.toml", body, hdr)
	got, _ := os.ReadFile(cfg) // absent when refused and never there
	switch {
	case want == 200 && (status != 200 || string(got) != body):
		t.Errorf("the operator's save of .atelier.toml through %s: %d %s, file %q", base, status, code, got)
	case want == 403 && (status != 403 || code != "protected_path" || !bytes.Equal(got, before)):
		t.Errorf("a refused save of .atelier.toml through %s: %d %s, file %q", base, status, code, got)
	}
}
