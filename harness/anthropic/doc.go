// Package anthropic is the Model harness for the Anthropic Messages API and
// servers that speak it. One Step is one streamed call: it turns the
// engine's transcript into messages (tool calls as tool_use blocks, their
// results as tool_result blocks), streams text, extended thinking and tool
// input to the Emitter as they arrive, and returns the complete tool calls
// for the engine's tool loop.
//
// With extended thinking on, the API wants the signed thinking blocks of the
// assistant message that made the tool calls sent back with their results.
// The stream hands each block's signature (and redacted blocks) to an
// Emitter that keeps them (harness.Signer: the engine's does, in the
// transcript), so a later step, even in another process after a restart,
// sends them back from the history. The Model also keeps its recent blocks
// in memory for emitters that do not; when neither has them, that step runs
// without thinking instead of failing.
//
// Rate limits and overloads, including an overloaded_error event in the
// middle of a stream, are retried here with each wait shown as a notice;
// the SDK's own retries are off.
package anthropic
