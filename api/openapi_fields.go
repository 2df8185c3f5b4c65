package api

import (
	"reflect"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/sessions"
)

// fieldEnums are the enums of the wire fields that are plain strings in Go
// but take one of a set of constants (a policy, a key's state), by struct
// and JSON name. The named string types' enums are generated
// (openapi_enums.go); these are listed by hand, so a constant added to
// one of these sets must be added here too (the values are the constants,
// so a value cannot drift).
var fieldEnums = map[reflect.Type]map[string][]string{
	reflect.TypeFor[client.CreateRequest](): {
		"approval":  policies,
		"mode":      {string(sessions.OneShot), string(sessions.Continuous)},
		"access":    {string(sessions.ReadWrite), string(sessions.ReadOnly)},
		"isolation": {core.IsolationWorktree, core.IsolationCopy},
	},
	reflect.TypeFor[client.ApprovalRequest]():       {"policy": policies},
	reflect.TypeFor[sessions.Session]():             {"approval": policies},
	reflect.TypeFor[client.CreateInstanceRequest](): {"kind": {string(instances.Worktree), string(instances.Copy)}},
	reflect.TypeFor[sessions.KeyRecord](): {
		"state": {sessions.KeyQueued, sessions.KeyStarted, sessions.KeyDone, sessions.KeyUncertain, sessions.KeyForgotten},
	},
}

// policies are the approval policies.
var policies = []string{core.PolicyAsk, core.PolicyAuto, core.PolicyReadOnly}
