package client

import (
	"context"
	"strings"
	"testing"
)

// TestReadEvents: the SSE parser keeps ids, skips comments, joins data
// lines, takes CRLF, and keeps the last id of an event delivered.
func TestReadEvents(t *testing.T) {
	in := ": ping\n\n" +
		"id: 7\r\nevent: snapshot\r\ndata: {\"seq\":7,\"sessions\":[],\"interactions\":[]}\r\n\r\n" +
		"event: resync\ndata: {}\n\n" +
		"id: 9\nevent: notice\ndata: {\"seq\":9,\"kind\":\"notice\",\ndata: \"text\":\"hi\"}\n\n" +
		"id: 10\nevent: notice\ndata: {\"seq\":10" // torn: not delivered
	ch := make(chan Event, 8)
	var last uint64
	n, err := readEvents(context.Background(), strings.NewReader(in), ch, &last)
	if err == nil || n != 3 || last != 9 {
		t.Fatalf("n %d, last %d, err %v", n, last, err)
	}
	close(ch)
	var got []string
	for ev := range ch {
		got = append(got, string(ev.Kind))
		if ev.Kind == "notice" && (ev.Text != "hi" || ev.Seq != 9) {
			t.Fatalf("notice %+v", ev)
		}
		if ev.Kind == KindSnapshot && (ev.Snapshot == nil || ev.Seq != 7) {
			t.Fatalf("snapshot %+v", ev)
		}
	}
	if strings.Join(got, ",") != "snapshot,resync,notice" {
		t.Fatalf("events %v", got)
	}
}

// TestNew takes socket paths and URLs and refuses the rest.
func TestNew(t *testing.T) {
	for addr, ok := range map[string]bool{"/run/a.sock": true, "unix:rel.sock": true,
		"http://127.0.0.1:7070/": true, "https://h/x": true, "localhost:80": false} {
		if _, err := New(addr, Options{}); (err == nil) != ok {
			t.Errorf("New(%q): %v", addr, err)
		}
	}
}
