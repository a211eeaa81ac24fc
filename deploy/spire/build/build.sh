#!/usr/bin/env bash
# npm run spire:build — builds spire-server and spire-agent 1.15.3 from Go modules, by name, with the
# module graph pinned in go.mod and go.sum next to this script (our recipe; no SPIRE code is kept
# here). The binaries go to $NOTEGATE_SPIRE_BIN, default .spire/bin under the repository root. A
# folder that already holds both binaries of this version is reused as it is. See
# docs/demo.md#spire-on-this-machine.
set -euo pipefail

VERSION=1.15.3
# The go directive of go.mod: the oldest Go that builds SPIRE 1.15.3.
GO_MIN=1.26.6
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${NOTEGATE_SPIRE_BIN:-$root/.spire/bin}

say() { echo "spire:build: $*" >&2; }

# Both daemons print their bare version on stderr (the gittag set below).
has_version() { [ -x "$bin/$1" ] && [ "$("$bin/$1" --version 2>&1)" = "$VERSION" ]; }

if has_version spire-server && has_version spire-agent; then
  say "$bin holds spire-server and spire-agent $VERSION; nothing to build"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  say "Go $GO_MIN or later is needed to build SPIRE $VERSION, and it is not installed."
  say "Without SPIRE, npm test skips the SPIRE tests and npm run demo uses the development identity provider."
  say "Or set NOTEGATE_SPIRE_BIN to a folder that holds spire-server and spire-agent $VERSION."
  exit 1
fi
go_version=$(GOTOOLCHAIN=local go env GOVERSION)
go_version=${go_version#go}
if [ "$(printf '%s\n%s\n' "$GO_MIN" "$go_version" | sort -V | head -n 1)" != "$GO_MIN" ]; then
  say "Go $go_version is too old: SPIRE $VERSION needs Go $GO_MIN or later."
  exit 1
fi
# The server's SQLite datastore is cgo code: without a C compiler the server cannot keep its data.
if ! command -v "$(GOTOOLCHAIN=local go env CC)" >/dev/null 2>&1; then
  say "no C compiler ($(GOTOOLCHAIN=local go env CC)): SPIRE's SQLite datastore needs cgo; install gcc and libc6-dev."
  exit 1
fi

mkdir -p "$bin"
# GOBIN must be absolute, and the build runs from this script's folder.
bin=$(cd "$bin" && pwd)
say "building spire-server and spire-agent $VERSION with Go $go_version into $bin"
cd "$here"
# GOTOOLCHAIN=local: never fetch another Go. -mod=readonly: the pinned graph in go.mod/go.sum, as it is.
CGO_ENABLED=1 GOTOOLCHAIN=local GOBIN="$bin" go install -mod=readonly -trimpath \
  -ldflags "-s -w -X github.com/spiffe/spire/pkg/common/version.gittag=$VERSION" \
  github.com/spiffe/spire/cmd/spire-server github.com/spiffe/spire/cmd/spire-agent

for name in spire-server spire-agent; do
  if ! has_version "$name"; then
    say "$bin/$name does not report version $VERSION after the build"
    exit 1
  fi
done
say "done: $bin/spire-server and $bin/spire-agent $VERSION"
