// Package workflow runs workflows: files (.atelier/workflows/NAME.toml in
// a workspace, trusted like .atelier.toml, or workflows/NAME.toml beside
// the user's config.toml) that declare an input schema, an idempotency
// key and ordered steps (exec a command, ask the agent), run on the
// engine in one continuous session that an implicit close ends.
//
// Parse checks a file whole before anything runs (unknown keys, step
// keys, schemas, templates), so a workflow that cannot be used fails
// before any model call. Runner executes runs on one engine, the engine
// host's: a run is recorded in .state/workflows/RUN.json before and after
// each step, each step carries an idempotency key in the session
// (wf/STEP), so a run resumed after kill -9 never repeats a step that
// completed and reports one whose result was never recorded (uncertain)
// rather than run it again. Nothing imports this package but the API and
// the CLI.
package workflow
