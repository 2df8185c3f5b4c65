// Package structured holds what the engine needs to ask an agent for a
// structured answer: an output JSON Schema compiled once (Compile), the
// guidance added to the prompt so the agent knows the shape to give
// (Schema.Guidance), and the check of the final answer (Schema.Check),
// which finds the JSON candidates in the answer's text (fenced blocks and
// bare values amid prose) and validates them against the schema.
//
// Validation is github.com/santhosh-tekuri/jsonschema/v6: it implements
// drafts 4 to 2020-12 with their meta-schemas, so a schema that cannot be
// used is refused before any model call with the reason, and a failed
// answer gets errors that name the instance location. The schema is the
// operator's (or a workflow's) and may come over the engine's API: it
// never loads anything but itself and the bundled meta-schemas (no file
// or network $ref).
//
// The rules for an answer with several candidates, in the order they
// appear in the text: the last one that validates wins (an agent drafts,
// quotes an example, then gives its answer last, as the guidance asks);
// when none does, the errors are the last candidate's.
package structured
