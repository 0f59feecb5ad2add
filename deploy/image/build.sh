#!/usr/bin/env bash
# Builds the indexer container image into podman for linux/amd64 and
# linux/arm64, as IMAGE-amd64 and IMAGE-arm64, with IMAGE (default
# localhost/codex7/indexer:dev) naming this machine's platform; PLATFORMS
# narrows the list. deploy/image/push.sh pushes them as one multi-arch image. It needs only Go (modules from the module proxy),
# Debian's ca-certificates and podman: the binaries are built here, static
# (CGO_ENABLED=0, time zones compiled in), and the image is FROM scratch
# (deploy/image/Containerfile), so no base image is pulled. `task image`
# runs it; `task image:push REGISTRY=…` runs push.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
IMAGE="${IMAGE:-localhost/codex7/indexer:dev}"
PLATFORMS="${PLATFORMS:-linux/amd64 linux/arm64}"
VERSION="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
REVISION="${REVISION:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
# The commit's time, not the build's: the same commit makes the same image.
EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
CREATED="$(date -u -d "@$EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
CERTS=/etc/ssl/certs/ca-certificates.crt
[ -r "$CERTS" ] || { echo "build.sh: $CERTS missing: apt-get install ca-certificates" >&2; exit 1; }
command -v podman >/dev/null || { echo "build.sh: podman missing: eval \"\$(../shared/containers/setup.sh)\" or apt-get install podman runc" >&2; exit 1; }

ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
cp deploy/image/Containerfile "$ctx/"
mkdir -p "$ctx/rootfs/etc/ssl/certs" "$ctx/rootfs/tmp" \
  "$ctx/writable/home/nonroot" "$ctx/writable/var/cache/codex7" "$ctx/writable/srv"
cp "$CERTS" "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$ctx/rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$ctx/rootfs/etc/group"
chmod 1777 "$ctx/rootfs/tmp"

ldflags="-s -w -X main.version=$VERSION -X main.commit=$REVISION -X main.date=$CREATED"
podman manifest rm "$IMAGE" >/dev/null 2>&1 || true
podman rmi -f "$IMAGE" >/dev/null 2>&1 || true
images=()
for p in $PLATFORMS; do
  arch="${p#linux/}"
  echo "building indexer for $p" >&2
  CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath -tags timetzdata -ldflags "$ldflags" \
    -o "$ctx/bin/linux-$arch/indexer" ./cmd/indexer
  podman build --quiet --format docker --platform "$p" --timestamp "$EPOCH" -t "$IMAGE-$arch" \
    --build-arg VERSION="$VERSION" --build-arg REVISION="$REVISION" --build-arg CREATED="$CREATED" \
    "$ctx" >/dev/null
  images+=("$IMAGE-$arch")
done
# IMAGE itself is this machine's platform, so that `podman run IMAGE`
# works; push.sh assembles the multi-arch index at push time (a local
# manifest list trips podman 4.3's image listing).
host="$(go env GOARCH)"
if [ -n "$(podman images -q "$IMAGE-$host")" ]; then
  podman tag "$IMAGE-$host" "$IMAGE"
fi
echo "$IMAGE: ${images[*]} (version $VERSION)"
