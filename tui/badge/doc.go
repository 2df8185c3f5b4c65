// Package badge says how a session's state is shown wherever the studio
// names it (the sessions list, a tab's header and label): an icon, a short
// word and a semantic tone, plus the live countdown of a parked timer or a
// start time. Keeping it in one place keeps the list and the tabs agreeing.
//
// Everything here is a pure function of a session record, what it waits on
// and the time, so the list and the tabs can call it on every frame.
package badge
