# Shared by conformance/build, up and down (sourced, not run).
# shellcheck shell=bash

berth_conformance_dir() { cd "$(dirname "${BASH_SOURCE[0]}")" && pwd; }

# The k8s.io/kubernetes version pinned in go.mod, e.g. v1.36.3.
berth_k8s_version() {
  awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2; exit }' "$(berth_conformance_dir)/go.mod"
}

# Where conformance/build puts the binaries: $BERTH_K8S_CACHE/k8s-<version> (default ~/.cache/berth).
berth_k8s_bin_dir() {
  echo "${BERTH_K8S_CACHE:-$HOME/.cache/berth}/k8s-$(berth_k8s_version)"
}

# Where conformance/up keeps a running control plane's state (certificates, tokens, data, logs, pids).
berth_run_dir() {
  echo "${BERTH_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/berth-conformance}"
}
