# shellcheck shell=bash
# Sourced by .ci/run (bash, set -euo pipefail): starts a private Docker engine
# for the terminal/docker tests and builds their image locally, since no image
# registry is reachable. On success it exports DOCKER_HOST and adds "docker" to
# REQUIRE; on failure it says why and leaves REQUIRE alone. Running it again
# reuses an engine it already started.
#
# The engine lives under ATELIER_DOCKERD_DIR (default /tmp/atelier-dockerd):
# data root, exec root, pidfile, log and unix socket. It uses the vfs storage
# driver and no bridge or iptables, so it needs no kernel module and touches no
# firewall; containers get network "none" or "host" only.

atelier_docker_setup() {
	local dir="${ATELIER_DOCKERD_DIR:-/tmp/atelier-dockerd}"
	local sock="$dir/docker.sock"
	local image="atelier-test-busybox:latest"

	if ! command -v dockerd >/dev/null 2>&1 || ! [ -x /bin/busybox ] || ! command -v docker >/dev/null 2>&1; then
		echo "docker setup: installing docker.io and busybox-static"
		# The package's own service is not wanted: forbid service starts
		# during the install unless the machine already has a policy.
		local policy=""
		if ! [ -e /usr/sbin/policy-rc.d ]; then
			policy=/usr/sbin/policy-rc.d
			printf '#!/bin/sh\nexit 101\n' >"$policy"
			chmod +x "$policy"
		fi
		local rc=0
		apt-get install -y -qq docker.io busybox-static >/dev/null || rc=$?
		[ -z "$policy" ] || rm -f "$policy"
		if [ "$rc" -ne 0 ]; then
			echo "docker setup: apt-get install failed ($rc)"
			return 1
		fi
	fi
	mkdir -p "$dir"
	export DOCKER_HOST="unix://$sock"

	if ! docker version >/dev/null 2>&1; then
		if [ -f "$dir/dockerd.pid" ] && kill -0 "$(cat "$dir/dockerd.pid")" 2>/dev/null; then
			echo "docker setup: dockerd $(cat "$dir/dockerd.pid") runs but does not answer; waiting"
		else
			rm -f "$dir/dockerd.pid" "$sock"
			echo "docker setup: starting dockerd under $dir"
			# setsid: the engine outlives this shell and is not in its process group.
			setsid dockerd \
				--data-root "$dir/data" \
				--exec-root "$dir/exec" \
				--pidfile "$dir/dockerd.pid" \
				--host "unix://$sock" \
				--storage-driver=vfs \
				--iptables=false --ip6tables=false --bridge=none \
				>"$dir/dockerd.log" 2>&1 </dev/null &
		fi
		local i
		for i in $(seq 1 60); do
			docker version >/dev/null 2>&1 && break
			sleep 1
		done
		if ! docker version >/dev/null 2>&1; then
			echo "docker setup: dockerd did not answer within 60s; its log:"
			tail -n 30 "$dir/dockerd.log" || true
			return 1
		fi
	fi
	echo "docker setup: engine $(docker version --format '{{.Server.Version}}') at $DOCKER_HOST"

	if ! docker image inspect "$image" >/dev/null 2>&1; then
		echo "docker setup: building $image from /bin/busybox"
		local root="$dir/rootfs"
		rm -rf "$root"
		mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/root" "$root/workspace" "$root/usr"
		chmod 1777 "$root/tmp"
		cp /bin/busybox "$root/bin/busybox"
		local applet
		for applet in $(/bin/busybox --list); do
			[ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
		done
		ln -s ../bin "$root/usr/bin"
		ln -s bin "$root/sbin"
		printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$root/etc/passwd"
		printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
		tar -C "$root" -cf "$dir/rootfs.tar" . &&
			docker import \
				--change 'ENV PATH=/bin' \
				--change 'CMD ["/bin/sh"]' \
				"$dir/rootfs.tar" "$image" >/dev/null || {
			echo "docker setup: docker import failed"
			return 1
		}
		rm -rf "$root" "$dir/rootfs.tar"
	fi
	REQUIRE="${REQUIRE:+$REQUIRE,}docker"
}

if ! atelier_docker_setup; then
	echo "docker setup: failed; the Docker tests will skip"
	unset DOCKER_HOST
fi
unset -f atelier_docker_setup
