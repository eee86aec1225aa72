#!/usr/bin/env bash
# Tools the OpenAPI contract tests (services/bff/test/openapi) run against the served document:
# openapi-spec-validator and openapi-python-client (PyPI, in a venv of their own) and oasdiff
# (built from its Go module through the module proxy, no GitHub downloads).
#
#   scripts/openapi-tools.sh install   installs what is missing or at another version; prints the tools directory
#   scripts/openapi-tools.sh path      prints the tools directory (exit 3 when a tool is missing)
#
# Environment (all optional):
#   OPENAPI_TOOLS_DIR              where they are kept ($HOME/.cache/transcribe/openapi-tools)
#   OPENAPI_SPEC_VALIDATOR_VERSION (0.9.0), OPENAPI_PYTHON_CLIENT_VERSION (0.29.1), OASDIFF_VERSION (v1.37.0)
# The tests look in OPENAPI_TOOLS_DIR; REQUIRE_OPENAPI_TOOLS=1 makes them fail instead of skipping.
set -euo pipefail

dir=${OPENAPI_TOOLS_DIR:-${HOME:-/root}/.cache/transcribe/openapi-tools}
validator_version=${OPENAPI_SPEC_VALIDATOR_VERSION:-0.9.0}
client_version=${OPENAPI_PYTHON_CLIENT_VERSION:-0.29.1}
oasdiff_version=${OASDIFF_VERSION:-v1.37.0}

say() { printf 'openapi-tools: %s\n' "$*" >&2; }

python_ok() {
  [ -x "$dir/venv/bin/python" ] || return 1
  local frozen
  frozen=$("$dir/venv/bin/python" -m pip freeze 2>/dev/null || true)
  [[ "$frozen" == *"openapi-spec-validator==$validator_version"* && "$frozen" == *"openapi-python-client==$client_version"* ]]
}

oasdiff_ok() {
  [ -x "$dir/bin/oasdiff" ] && [[ "$("$dir/bin/oasdiff" --version 2>/dev/null || true)" == *"${oasdiff_version#v}"* ]]
}

case "${1:-}" in
  install)
    if ! python_ok; then
      say "installing openapi-spec-validator $validator_version and openapi-python-client $client_version"
      python3 -m venv "$dir/venv"
      "$dir/venv/bin/python" -m pip install -q --disable-pip-version-check \
        "openapi-spec-validator==$validator_version" "openapi-python-client==$client_version" >&2
    fi
    if ! oasdiff_ok; then
      if [ -d /usr/local/go/bin ]; then export PATH="$PATH:/usr/local/go/bin"; fi
      command -v go >/dev/null || { say "go is required to build oasdiff"; exit 1; }
      say "building github.com/oasdiff/oasdiff@$oasdiff_version"
      mkdir -p "$dir/bin"
      GOBIN="$dir/bin" CGO_ENABLED=0 go install -ldflags "-X github.com/oasdiff/oasdiff/build.Version=$oasdiff_version" \
        "github.com/oasdiff/oasdiff@$oasdiff_version" >&2
      oasdiff_ok || { say "$dir/bin/oasdiff does not report $oasdiff_version"; exit 1; }
    fi
    echo "$dir"
    ;;
  path)
    python_ok && oasdiff_ok || exit 3
    echo "$dir"
    ;;
  *)
    echo "usage: $0 install|path" >&2
    exit 2
    ;;
esac
