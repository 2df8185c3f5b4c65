# shellcheck shell=bash
# Sourced by .ci/run (bash, set -euo pipefail): installs Redocly CLI, the
# OpenAPI linter api's TestOpenAPILint runs on the document the server
# serves. On success "redocly" is on PATH and joins REQUIRE; on failure it
# says why and the test skips (and .ci/run stops, as it requires it).

atelier_redocly_setup() {
	local version="2.77.0"
	local prefix="${ATELIER_REDOCLY_PREFIX:-/opt/atelier-redocly}"
	if ! command -v npm >/dev/null 2>&1; then
		echo "redocly setup: npm is missing"
		return 1
	fi
	# No telemetry and no update check, here and in the tests.
	export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
	if [ "$("$prefix/bin/redocly" --version 2>/dev/null)" != "$version" ]; then
		echo "redocly setup: installing @redocly/cli@$version into $prefix"
		npm install -g --prefix "$prefix" --no-fund --no-audit "@redocly/cli@$version" >/dev/null || {
			echo "redocly setup: npm install failed"
			return 1
		}
	fi
	local got
	got=$("$prefix/bin/redocly" --version 2>/dev/null || true)
	if [ "$got" != "$version" ]; then
		echo "redocly setup: redocly --version says '$got', want $version"
		return 1
	fi
	export PATH="$prefix/bin:$PATH"
	echo "redocly setup: $got"
	REQUIRE="${REQUIRE:+$REQUIRE,}redocly"
}

if ! atelier_redocly_setup; then
	echo "redocly setup: failed; the OpenAPI lint test will skip"
fi
unset -f atelier_redocly_setup
