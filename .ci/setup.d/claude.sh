# shellcheck shell=bash
# Sourced by .ci/run (bash, set -euo pipefail): installs the Claude Code CLI
# at the version harness/claude was written against (claude.Version) for
# the harness/claude tests, which run it against a fake model server in a
# loopback-only network namespace. On success "claude" is on PATH and added
# to REQUIRE; on failure it says why and leaves REQUIRE alone (the tests
# then skip).
#
# The package ships the native binary in a per-platform optional
# dependency that its postinstall script copies into place; when npm skips
# install scripts, the script is run by hand.

atelier_claude_setup() {
	local version="2.1.197"
	local prefix="${ATELIER_CLAUDE_PREFIX:-/opt/atelier-claude}"
	local bin="$prefix/node_modules/.bin"

	if [ -x "$bin/claude" ] && "$bin/claude" --version 2>/dev/null | grep -q "^$version "; then
		echo "claude setup: $version already installed under $prefix"
	else
		if ! command -v npm >/dev/null 2>&1; then
			echo "claude setup: installing nodejs and npm"
			apt-get install -y -qq nodejs npm >/dev/null || {
				echo "claude setup: apt-get install nodejs npm failed"
				return 1
			}
		fi
		mkdir -p "$prefix"
		echo "claude setup: npm install @anthropic-ai/claude-code@$version into $prefix"
		npm install --prefix "$prefix" --no-fund --no-audit --no-save \
			"@anthropic-ai/claude-code@$version" >/dev/null || {
			echo "claude setup: npm install failed"
			return 1
		}
		if ! "$bin/claude" --version >/dev/null 2>&1; then
			echo "claude setup: placing the native binary (postinstall)"
			(cd "$prefix/node_modules/@anthropic-ai/claude-code" && node install.cjs) || {
				echo "claude setup: postinstall failed"
				return 1
			}
		fi
	fi
	local got
	got=$("$bin/claude" --version 2>/dev/null || true)
	case "$got" in
	"$version "*) ;;
	*)
		echo "claude setup: claude --version says '$got', want $version"
		return 1
		;;
	esac
	export PATH="$bin:$PATH"
	echo "claude setup: $got"
	REQUIRE="${REQUIRE:+$REQUIRE,}claude"
}

if ! atelier_claude_setup; then
	echo "claude setup: failed; the claude CLI tests will skip"
fi
unset -f atelier_claude_setup
