package anthropic

import (
	"sync"

	sdk "github.com/anthropics/anthropic-sdk-go"
)

// thinkingCache keeps the signed thinking blocks of recent assistant
// messages that made tool calls, by tool call id, so the next step can send
// them back verbatim as the API requires. It is bounded: the oldest
// entries go first.
type thinkingCache struct {
	mu     sync.Mutex
	blocks map[string][]sdk.ContentBlockParamUnion
	order  []string
	limit  int
}

func newThinkingCache(limit int) *thinkingCache {
	return &thinkingCache{blocks: map[string][]sdk.ContentBlockParamUnion{}, limit: limit}
}

func (c *thinkingCache) put(ids []string, blocks []sdk.ContentBlockParamUnion) {
	if len(blocks) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if _, ok := c.blocks[id]; !ok {
			c.order = append(c.order, id)
		}
		c.blocks[id] = blocks
	}
	for len(c.order) > c.limit {
		delete(c.blocks, c.order[0])
		c.order = c.order[1:]
	}
}

// get returns the blocks stored for any of the ids.
func (c *thinkingCache) get(ids []string) []sdk.ContentBlockParamUnion {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if b, ok := c.blocks[id]; ok {
			return b
		}
	}
	return nil
}
