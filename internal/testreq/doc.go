// Package testreq lets tests that need a real component of the machine (tmux,
// a Docker engine, an agent CLI) skip where it is missing, and fail instead
// where ATELIER_TEST_REQUIRE names it, so CI cannot pass by skipping.
package testreq
