package core

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/atelier-studio/atelier/sessions"
)

// keyDigest identifies the work a key was given, so the same key with other
// work is told apart from a repeat.
func keyDigest(kind, text string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + text))
	return hex.EncodeToString(sum[:12])
}

// repeatedKeyLocked answers a keyed prompt or steer whose key the session
// already has: the recorded item (queued, started, done, uncertain) for the
// same work, ErrKeyConflict for other work. ok is false for a new key.
func (l *live) repeatedKeyLocked(c sessions.Control) (Receipt, bool, error) {
	k, ok := l.keys[c.Key]
	if !ok {
		return Receipt{}, false, nil
	}
	if k.Op == "exec" || (k.Digest != "" && k.Digest != promptDigest(c.Text, c.Output)) {
		return Receipt{}, true, fmt.Errorf("key %q of session %s: %w", c.Key, l.rec.ID, ErrKeyConflict)
	}
	kc := k
	return Receipt{ID: k.Op, When: "already " + k.State + " (idempotency key " + c.Key + ")", Key: &kc}, true, nil
}

// Keys lists a session's idempotency keys with their latest state and
// result, oldest first.
func (e *Engine) Keys(id string) ([]sessions.KeyRecord, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return nil, err
	}
	out := make([]sessions.KeyRecord, 0, len(l.keys))
	for _, k := range l.keys {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.Before(out[j].Time)
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

// ForgetKey clears an uncertain key after the operator checked what its
// operation did: the key is free again for new work. Keys in any other
// state are refused: a queued or started one is still in flight, and a
// done one holds a result callers rely on.
func (e *Engine) ForgetKey(id, key string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return err
	}
	k, ok := l.keys[key]
	if !ok {
		return fmt.Errorf("key %q of session %s: %w", key, l.rec.ID, ErrUnknownKey)
	}
	if k.State != sessions.KeyUncertain {
		return fmt.Errorf("key %q of session %s is %s: only an uncertain key can be forgotten", key, l.rec.ID, k.State)
	}
	rec := sessions.KeyRecord{Key: key, Op: k.Op, State: sessions.KeyForgotten, Time: e.opts.Now()}
	if err := l.log.AppendKey(rec); err != nil {
		return fmt.Errorf("forget key %q of session %s: %w", key, l.rec.ID, err)
	}
	delete(l.keys, key)
	return nil
}
