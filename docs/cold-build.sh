#!/usr/bin/env bash
# Measures README's first set-up command on a cold build cache and writes
# docs/cold-build.txt, which README quotes (go test ./docs/ checks it):
# a fresh clone of HEAD, an empty GOCACHE (the module cache as it is: say
# whether it was filled), then `go run ./cmd/pipeline run` with every line
# of its output stamped with the seconds since the start.
#
#   docs/cold-build.sh [OUT]     # OUT defaults to docs/cold-build.txt
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$repo/docs/cold-build.txt}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
export GOCACHE="$work/gocache"
modcache="$(go env GOMODCACHE)"
if [ -d "$modcache/github.com/apache/arrow" ]; then filled=filled; else filled=empty; fi
{
	echo "README's first set-up command on a cold build cache"
	echo "command: go run ./cmd/pipeline run (a fresh clone; GOCACHE empty; module cache $filled)"
	echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(go version | cut -d' ' -f3)"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "seconds since the start, then the line:"
} >"$out"
start=$(date +%s.%N)
set +e
(cd "$work/clone" && go run ./cmd/pipeline run 2>&1) | while IFS= read -r line; do
	printf '%6.1f %s\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$line"
done >>"$out"
rc=${PIPESTATUS[0]}
set -e
{
	echo "exit code: $rc"
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$out"
