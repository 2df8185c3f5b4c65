// Package anthropic is the Model harness for the Anthropic Messages API and
// servers that speak it. One Step is one streamed call: it turns the
// engine's transcript into messages (tool calls as tool_use blocks, their
// results as tool_result blocks), streams text, extended thinking and tool
// input to the Emitter as they arrive, and returns the complete tool calls
// for the engine's tool loop.
//
// With extended thinking on, the API wants the signed thinking blocks of the
// assistant message that made the tool calls sent back with their results.
// The transcript has no place for a signature yet, so the Model keeps the
// blocks of its recent tool calls in memory; when they are missing (another
// process made the call), that step runs without thinking instead of failing.
//
// Rate limits and overloads, including an overloaded_error event in the
// middle of a stream, are retried here with each wait shown as a notice;
// the SDK's own retries are off.
package anthropic
