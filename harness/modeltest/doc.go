// Package modeltest helps test the model harnesses (harness/openai,
// harness/anthropic) at the network edge: a scripted fake model server that
// replays recorded SSE streams and records the requests it gets, a recording
// Emitter, and the recorded fixtures themselves. Only tests import it.
package modeltest
