// Package trigger runs a workspace's triggers on its engine host: it starts
// a session of an agent (or a workflow) when a named event fires on the
// engine, on a schedule, or when files of the workspace change.
//
// A Runner is started by every engine host once its engine is open, and
// stopped before the engine closes. It listens on the engine's bus for the
// events FireEvent publishes (core.EvSignal), keeps a timer per schedule
// (the expressions robfig/cron parses), and watches the workspace through
// the engine's file access, whose attribution says which session made a
// change, so a trigger ignores what its own sessions change (no loops).
//
// Each firing has an id derived from what fired it (the trigger's name and
// the event's id, the time it was scheduled for, or the batch of changes)
// and is recorded in .state/triggers.jsonl, append-only and synced, before
// anything starts: a firing already recorded is never started again, by
// this host or a later one. The session it starts carries an idempotency
// key made from the firing id, so a host that dies between the record and
// the create finishes the firing when it next starts, without making a
// second session. Schedules missed while no host ran are reported (the
// activity, the run log, the record), never run in a burst.
//
// The package imports core and config; workflows reach it through the
// Workflows interface, which its caller provides.
package trigger
