#!/usr/bin/env bash
# Builds the indexer's release into OUT (default build/release; a relative
# OUT is taken from the current directory; wiped first): for each os/arch in
# TARGETS (default the six below) a static binary with the version stamped
# in, packed as indexer_VERSION_OS_ARCH.tar.gz (.zip for windows) with
# README.md (and LICENSE, if there is one), a CycloneDX SBOM of the modules
# in that binary, indexer_VERSION_OS_ARCH.sbom.cdx.json, and checksums.txt,
# the SHA-256 of every archive and SBOM (`sha256sum -c checksums.txt`).
#
# VERSION defaults to `git describe --tags --always --dirty`, REVISION to the
# commit, SOURCE_DATE_EPOCH to the commit's time; the same commit, toolchain
# and inputs make byte-identical archives and SBOMs. It needs Go (modules,
# and cyclonedx-gomod, from the module proxy), git, GNU tar and gzip and
# coreutils; zips are written by deploy/release/zip.go, so no zip binary.
# `task release` runs it; deploy/release/README.md says more.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="$(realpath -m -- "${OUT:-$root/build/release}")"
cd "$root"
TARGETS="${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}"
VERSION="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
REVISION="${REVISION:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
# The commit's time, not the build's: the same commit makes the same release.
EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
CYCLONEDX_GOMOD="github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0"

die() { echo "release.sh: $*" >&2; exit 1; }
[[ "$VERSION" =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] ||
  die "VERSION $VERSION would not make a file name: use letters, digits and . _ + - (v1.2.3)"
[[ "$EPOCH" =~ ^[0-9]+$ ]] || die "SOURCE_DATE_EPOCH $EPOCH is not a Unix time in seconds"
CREATED="$(date -u -d "@$EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
tar --version 2>/dev/null | grep -q 'GNU tar' || die "needs GNU tar (--sort=name): apt-get install tar, or brew install gnu-tar and put gtar first on PATH as tar"
for tool in go gzip sha256sum; do
  command -v "$tool" >/dev/null || die "$tool missing"
done
valid="$(go tool dist list)"
for t in $TARGETS; do
  grep -qx -- "$t" <<<"$valid" || die "TARGETS: $t is not an os/arch Go builds for (go tool dist list)"
done
# OUT is removed whole: never the repository, an ancestor of it, or home.
for keep in "$root" "${HOME:-$root}"; do
  case "$keep/" in "$OUT"/*) die "OUT=$OUT would remove $keep: choose a directory of its own" ;; esac
done
[ "$OUT" != / ] || die "OUT=/ would remove everything: choose a directory of its own"

tmp="$(mktemp -d)"
# A release that failed half-way is removed rather than left to be shipped.
trap 'status=$?; rm -rf "$tmp"; [ "$status" -eq 0 ] || rm -rf "$OUT"' EXIT
rm -rf "$OUT"
mkdir -p "$OUT"

# The helpers run here, so they are built for this machine whatever
# GOOS/GOARCH the environment holds, once per run (the build cache makes
# that quick after the first time).
host=(GOOS="$(go env GOHOSTOS)" GOARCH="$(go env GOHOSTARCH)" CGO_ENABLED=0)
echo "release.sh: building the helpers (cyclonedx-gomod ${CYCLONEDX_GOMOD#*@})" >&2
env "${host[@]}" GOBIN="$tmp/bin" go install -trimpath "$CYCLONEDX_GOMOD"
env "${host[@]}" go build -trimpath -o "$tmp/bin/zip" deploy/release/zip.go

goflags="$(go env GOFLAGS)"
goflags="${goflags:+$goflags }"
ldflags="-s -w -X main.version=$VERSION -X main.commit=$REVISION -X main.date=$CREATED"
for t in $TARGETS; do
  os="${t%/*}" arch="${t#*/}"
  name="indexer_${VERSION}_${os}_${arch}"
  bin=indexer
  [ "$os" = windows ] && bin=indexer.exe
  stage="$tmp/stage/$name"
  mkdir -p "$stage"
  echo "release.sh: building $t" >&2
  CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath -tags timetzdata -ldflags "$ldflags" \
    -o "$stage/$bin" ./cmd/indexer
  cp README.md "$stage/"
  if [ -f LICENSE ]; then cp LICENSE "$stage/"; fi
  chmod 0755 "$stage/$bin"
  touch -d "@$EPOCH" "$stage"/*
  mapfile -t files < <(cd "$stage" && LC_ALL=C ls -1)
  if [ "$os" = windows ]; then
    archive="$name.zip"
    (cd "$stage" && "$tmp/bin/zip" -epoch "$EPOCH" -o "$OUT/$archive" "${files[@]}")
  else
    archive="$name.tar.gz"
    tar -C "$stage" -c --format=ustar --sort=name --mtime="@$EPOCH" \
      --owner=0 --group=0 --numeric-owner --mode='u+rw,go+r,go-w,a+X' -f - -- "${files[@]}" |
      gzip -9 -n >"$OUT/$archive"
  fi

  # The SBOM of what this target's binary links: the same GOOS, GOARCH,
  # CGO_ENABLED and build tags as the build above select the modules.
  sbom="$OUT/$name.sbom.cdx.json"
  CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" GOFLAGS="$goflags-tags=timetzdata" \
    "$tmp/bin/cyclonedx-gomod" app -json -licenses=false -noserial -notimestamp \
    -main cmd/indexer -output "$sbom" .
  # cyclonedx-gomod can only stamp the time it runs, which no two runs
  # share: stamp the commit's time instead.
  sed -i "0,/^  \"metadata\": {\$/s//  \"metadata\": {\n    \"timestamp\": \"$CREATED\",/" "$sbom"
  grep -q "^    \"timestamp\": \"$CREATED\",\$" "$sbom" || die "$sbom: could not stamp metadata.timestamp"
done

mapfile -t names < <(cd "$OUT" && LC_ALL=C ls -1)
(cd "$OUT" && sha256sum -- "${names[@]}") >"$tmp/checksums.txt"
mv "$tmp/checksums.txt" "$OUT/checksums.txt"

echo "indexer $VERSION (commit $REVISION, built $CREATED) in $OUT:"
(cd "$OUT" && LC_ALL=C ls -1 | while read -r f; do
  printf '  %-52s %9s\n' "$f" "$(numfmt --to=iec --suffix=B "$(stat -c %s "$f")")"
done)
