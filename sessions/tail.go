package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sort"
	"strconv"
)

// tailChunk is how much MessagesTail reads at a time, from the end.
const tailChunk = 1 << 20

// MessagesTail reads the last n messages of the transcript without reading
// the whole file: it walks back from the end, where each message's latest
// revision is, until it has n distinct messages. A long transcript (100 MB)
// opens in the time it takes to read its last few chunks. more reports
// whether older messages were left unread. A corrupt line is skipped; a torn
// last line is ignored (Messages, which a running session uses, repairs it).
// A dropped message is left out, as Messages leaves it out.
func (l *Log) MessagesTail(n int) (msgs []Message, more bool, err error) {
	f, err := l.messages.file.open(os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer closeRead(f)
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	seen := map[string]bool{}
	end := fi.Size()
	var carry []byte // the start of a line whose beginning is in the next chunk back
	for end > 0 && len(msgs) < n {
		start := max(end-tailChunk, 0)
		buf := make([]byte, end-start, end-start+int64(len(carry)))
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return nil, false, err
		}
		buf = append(buf, carry...)
		lines := bytes.Split(buf, []byte{'\n'})
		carry = nil
		if start > 0 {
			carry, lines = lines[0], lines[1:]
		}
		i := len(lines) - 1
		for ; i >= 0 && len(msgs) < n; i-- {
			var m Message
			if len(bytes.TrimSpace(lines[i])) == 0 || decodeStrict(lines[i], &m) != nil || m.ID == "" || seen[m.ID] {
				continue
			}
			seen[m.ID] = true
			if !m.Dropped {
				msgs = append(msgs, m)
			}
		}
		// Lines of this chunk left unread hold older messages only if one
		// names a message not seen yet (older revisions do not count).
		for ; i >= 0 && !more; i-- {
			var id struct{ ID string }
			if json.Unmarshal(lines[i], &id) == nil && id.ID != "" && !seen[id.ID] {
				more = true
			}
		}
		end = start
	}
	more = more || end > 0 || len(carry) > 0
	sort.SliceStable(msgs, func(i, j int) bool { return msgOrder(msgs[i].ID) < msgOrder(msgs[j].ID) })
	return msgs, more, nil
}

// msgOrder is a message id's position: ids are "m" and a counter.
func msgOrder(id string) int {
	n, err := strconv.Atoi(id[1:])
	if err != nil || id[0] != 'm' {
		return 0
	}
	return n
}
