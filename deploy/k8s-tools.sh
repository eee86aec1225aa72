#!/usr/bin/env bash
# helm and kubeconform for the chart tests (charts/test) and `make chart-*`.
#
#   deploy/k8s-tools.sh install   go install both into the cache unless already there; prints the bin directory
#   deploy/k8s-tools.sh path      prints the bin directory (exit 3 when a tool is missing)
#
# Built from their Go modules through the module proxy (no GitHub release downloads),
# once per version; later runs return at once.
#
# Environment (all optional):
#   HELM_VERSION         helm.sh/helm/v3 module version                (v3.22.0)
#   KUBECONFORM_VERSION  github.com/yannh/kubeconform module version   (v0.8.0)
#   K8S_TOOLS_DIR        where the binaries are kept                   ($HOME/.cache/transcribe/bin)
# The chart tests look in K8S_TOOLS_DIR (then PATH); REQUIRE_HELM=1 makes them fail instead of skipping.
set -euo pipefail

helm_version=${HELM_VERSION:-v3.22.0}
kubeconform_version=${KUBECONFORM_VERSION:-v0.8.0}
# The Kubernetes minor of the client-go helm_version builds with (k8s.io/client-go v0.37 → 1.37).
helm_kubernetes_minor=${HELM_KUBERNETES_MINOR:-37}
bin_dir=${K8S_TOOLS_DIR:-${HOME:-/root}/.cache/transcribe/bin}

say() { printf 'k8s-tools: %s\n' "$*" >&2; }

# A binary is reused only when it reports the pinned version, so bumping a version rebuilds it.
has_version() {
  local binary=$1 expected=$2 reported
  [ -x "$binary" ] || return 1
  case "$(basename "$binary")" in
    helm) reported=$("$binary" version --short 2>/dev/null || true) ;;
    *) reported=$("$binary" -v 2>/dev/null || true) ;;
  esac
  [[ "$reported" == *"${expected#v}"* ]]
}

install_tool() {
  local name=$1 module=$2 version=$3
  if has_version "$bin_dir/$name" "$version"; then return; fi
  if [ -d /usr/local/go/bin ]; then export PATH="$PATH:/usr/local/go/bin"; fi
  command -v go >/dev/null || { say "go is required to build $name ($module@$version)"; exit 1; }
  mkdir -p "$bin_dir"
  say "building $module@$version"
  # Both read their version from linker variables, as their release builds set them; helm
  # also the Kubernetes version `helm template` and `helm lint` assume (that of its client-go).
  local ldflags
  if [ "$name" = helm ]; then
    ldflags="-X helm.sh/helm/v3/internal/version.version=$version"
    for pkg in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
      ldflags="$ldflags -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$helm_kubernetes_minor"
    done
  else
    ldflags="-X main.version=$version"
  fi
  GOBIN="$bin_dir" CGO_ENABLED=0 go install -ldflags "$ldflags" "$module@$version" >&2
  has_version "$bin_dir/$name" "$version" || { say "$bin_dir/$name does not report $version"; exit 1; }
}

case "${1:-}" in
  install)
    install_tool helm helm.sh/helm/v3/cmd/helm "$helm_version"
    install_tool kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$kubeconform_version"
    echo "$bin_dir"
    ;;
  path)
    for tool in helm kubeconform; do [ -x "$bin_dir/$tool" ] || { say "$tool not installed (run $0 install)"; exit 3; }; done
    echo "$bin_dir"
    ;;
  *) echo "usage: $0 install|path" >&2; exit 2 ;;
esac
