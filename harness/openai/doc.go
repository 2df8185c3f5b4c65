// Package openai is the Model harness for OpenAI and every OpenAI-compatible
// server (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter). One Step is one
// streamed call of the Chat Completions API (the default, since it is what
// compatible servers speak) or of the Responses API: it turns the engine's
// transcript into the API's messages, streams text, reasoning and tool calls
// to the Emitter as they arrive, and returns the complete tool calls for the
// engine's tool loop.
//
// Real servers bend the wire format, so the stream handling is lenient
// where it can be and strict where it must be: tool calls are gathered by
// index whatever the finish reason says, whole arguments in one chunk are
// fine, reasoning_content and reasoning deltas are reasoning, a missing usage
// chunk is no error; but a stream that ends before the model finished, or a
// tool call whose arguments are not JSON, fails the step rather than hand the
// engine a half tool call. Rate limits and overloads are retried here, with
// each wait shown as a notice; the SDK's own retries are off.
package openai
