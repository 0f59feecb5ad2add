#!/usr/bin/env bash
# Pushes the images build.sh built (IMAGE-amd64, IMAGE-arm64) as one
# multi-arch image: DEST (default $REGISTRY/indexer:$TAG, TAG default the
# version build.sh stamped, i.e. git describe) becomes an image index of
# both platforms. Credentials: podman's (podman login REGISTRY), or
# REGISTRY_USERNAME and REGISTRY_PASSWORD. PLAIN_HTTP=1 for a registry
# without TLS (a test registry on loopback).
set -euo pipefail
cd "$(dirname "$0")/../.."
IMAGE="${IMAGE:-localhost/codex7/indexer:dev}"
PLATFORMS="${PLATFORMS:-linux/amd64 linux/arm64}"
TAG="${TAG:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
if [ -z "${DEST:-}" ]; then
  [ -n "${REGISTRY:-}" ] || { echo "push.sh: give REGISTRY (e.g. ghcr.io/acme) or DEST (a full image reference)" >&2; exit 2; }
  DEST="$REGISTRY/indexer:$TAG"
fi
list="localhost/codex7/indexer-push:$$"
trap 'podman manifest rm "$list" >/dev/null 2>&1 || true' EXIT
podman manifest create "$list" >/dev/null
for p in $PLATFORMS; do
  podman manifest add "$list" "containers-storage:$IMAGE-${p#linux/}" >/dev/null
done
args=(--all --format v2s2)
[ "${PLAIN_HTTP:-}" = 1 ] && args+=(--tls-verify=false)
[ -n "${REGISTRY_USERNAME:-}" ] && args+=(--creds "$REGISTRY_USERNAME:${REGISTRY_PASSWORD:-}")
podman manifest push "${args[@]}" "$list" "docker://$DEST"
echo "pushed $DEST ($PLATFORMS)"
