#!/usr/bin/env bash
# grpcurl for the gRPC interop tests (deploy/embedded/test/grpcurl.test.ts) and for calling
# a service by hand (docs/api.md).
#
#   deploy/grpc-tools.sh install   go install grpcurl into the cache unless already there; prints the bin directory
#   deploy/grpc-tools.sh path      prints the bin directory (exit 3 when grpcurl is missing)
#
# Built from its Go module through the module proxy (no GitHub release download), once per
# version; later runs return at once. Same cache as deploy/k8s-tools.sh.
#
# Environment (all optional):
#   GRPCURL_VERSION  github.com/fullstorydev/grpcurl module version  (v1.9.3)
#   K8S_TOOLS_DIR    where the binaries are kept                     ($HOME/.cache/transcribe/bin)
# The test looks in K8S_TOOLS_DIR (then PATH); REQUIRE_GRPCURL=1 makes it fail instead of skipping.
set -euo pipefail

grpcurl_version=${GRPCURL_VERSION:-v1.9.3}
bin_dir=${K8S_TOOLS_DIR:-${HOME:-/root}/.cache/transcribe/bin}

say() { printf 'grpc-tools: %s\n' "$*" >&2; }

# Reused only when it reports the pinned version, so bumping the version rebuilds it.
has_version() {
  [ -x "$bin_dir/grpcurl" ] || return 1
  [[ "$("$bin_dir/grpcurl" -version 2>&1 || true)" == *"${grpcurl_version#v}"* ]]
}

case "${1:-}" in
  install)
    if ! has_version; then
      if [ -d /usr/local/go/bin ]; then export PATH="$PATH:/usr/local/go/bin"; fi
      command -v go >/dev/null || { say "go is required to build grpcurl@$grpcurl_version"; exit 1; }
      mkdir -p "$bin_dir"
      say "building github.com/fullstorydev/grpcurl/cmd/grpcurl@$grpcurl_version"
      # grpcurl reads its version from main.version, as its release builds set it.
      GOBIN="$bin_dir" CGO_ENABLED=0 go install -ldflags "-X main.version=$grpcurl_version" \
        "github.com/fullstorydev/grpcurl/cmd/grpcurl@$grpcurl_version" >&2
      has_version || { say "$bin_dir/grpcurl does not report $grpcurl_version"; exit 1; }
    fi
    echo "$bin_dir"
    ;;
  path)
    [ -x "$bin_dir/grpcurl" ] || { say "grpcurl not installed (run $0 install)"; exit 3; }
    echo "$bin_dir"
    ;;
  *) echo "usage: $0 install|path" >&2; exit 2 ;;
esac
