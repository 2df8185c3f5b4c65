# shellcheck shell=bash
# Sourced by .ci/run (bash, set -euo pipefail): installs an ACP agent for
# harness/acp's real-agent tests: Zed's Claude Code ACP adapter, which runs
# the Claude Code bundled in @anthropic-ai/claude-agent-sdk (its dependency)
# against a fake Anthropic server in a loopback-only network namespace.
# On success "claude-code-acp" joins REQUIRE; on failure the tests skip.

atelier_acp_setup() {
	local version="0.16.2"
	local prefix="${ATELIER_ACP_PREFIX:-/opt/atelier-claude-code-acp}"
	if ! command -v npm >/dev/null 2>&1; then
		echo "acp setup: npm is missing"
		return 1
	fi
	if ! [ -x "$prefix/bin/claude-code-acp" ] ||
		! grep -q "\"version\": \"$version\"" "$prefix/lib/node_modules/@zed-industries/claude-code-acp/package.json" 2>/dev/null; then
		echo "acp setup: installing @zed-industries/claude-code-acp@$version into $prefix"
		npm install -g --prefix "$prefix" --no-fund --no-audit "@zed-industries/claude-code-acp@$version" >/dev/null || {
			echo "acp setup: npm install failed"
			return 1
		}
	fi
	export PATH="$prefix/bin:$PATH"
	command -v claude-code-acp >/dev/null || return 1
	REQUIRE="${REQUIRE:+$REQUIRE,}claude-code-acp"
}

if ! atelier_acp_setup; then
	echo "acp setup: failed; the ACP agent tests will skip"
fi
unset -f atelier_acp_setup
