// Package fakeanthropic is a scripted Anthropic Messages API for tests that
// run a real agent CLI (Claude Code) against it on 127.0.0.1: a reply
// function decides each answer from what the request holds, answers stream
// as Server-Sent Events as the real API's do, and every request is kept for
// the test to inspect.
package fakeanthropic
