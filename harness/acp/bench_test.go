package acp

import (
	"fmt"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/atelier-studio/atelier/harness/modeltest"
)

// BenchmarkUpdates applies a turn's worth of session updates (200 message
// chunks, 20 tool calls with diffs, started and completed) to the view.
func BenchmarkUpdates(b *testing.B) {
	var ups []acpsdk.SessionUpdate
	for i := range 200 {
		ups = append(ups, acpsdk.UpdateAgentMessageText(fmt.Sprintf("word %d ", i)))
	}
	old := "a\nb\nc\n"
	for i := range 20 {
		id := acpsdk.ToolCallId(fmt.Sprintf("t%d", i))
		ups = append(ups, acpsdk.StartToolCall(id, "Edit f.go", acpsdk.WithStartKind(acpsdk.ToolKindEdit),
			acpsdk.WithStartRawInput(map[string]any{"file_path": "/w/f.go"}),
			acpsdk.WithStartContent([]acpsdk.ToolCallContent{acpsdk.ToolDiffContent("/w/f.go", "a\nB\nc\n", old)})),
			acpsdk.UpdateToolCall(id, acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusCompleted)))
	}
	b.ReportAllocs()
	for b.Loop() {
		v := newView(&modeltest.Recorder{}, nil)
		for _, u := range ups {
			v.update(u)
		}
	}
}
