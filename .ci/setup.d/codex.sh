# shellcheck shell=bash
# Sourced by .ci/run (bash, set -euo pipefail): installs the Codex CLI at the
# version harness/codex was written against, for its real-CLI tests (which
# run it against a fake model server in a loopback-only network namespace).
# On success "codex" joins REQUIRE; on failure it says why and the tests skip.

atelier_codex_setup() {
	local version="0.171.0"
	local prefix="${ATELIER_CODEX_PREFIX:-/opt/atelier-codex}"
	if ! command -v npm >/dev/null 2>&1; then
		echo "codex setup: npm is missing"
		return 1
	fi
	if [ "$("$prefix/bin/codex" --version 2>/dev/null)" != "codex-cli $version" ]; then
		echo "codex setup: installing @openai/codex@$version into $prefix"
		npm install -g --prefix "$prefix" --no-fund --no-audit "@openai/codex@$version" >/dev/null || {
			echo "codex setup: npm install failed"
			return 1
		}
	fi
	export PATH="$prefix/bin:$PATH"
	codex --version || return 1
	REQUIRE="${REQUIRE:+$REQUIRE,}codex"
}

if ! atelier_codex_setup; then
	echo "codex setup: failed; the codex CLI tests will skip"
fi
unset -f atelier_codex_setup
