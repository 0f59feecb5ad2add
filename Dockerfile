# The conventional multi-stage build, for docker build / buildx where the
# Go and distroless base images can be pulled:
#
#   docker buildx build --platform linux/amd64,linux/arm64 -t ghcr.io/acme/indexer:dev .
#
# It makes the same image as `task image` (deploy/image/build.sh), which
# CI builds and tests: that recipe needs no base image (FROM scratch with
# binaries built on the host), since no public registry is reachable
# there. This file is not built by CI.
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS TARGETARCH VERSION=dev REVISION=unknown CREATED=unknown
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -tags timetzdata \
      -ldflags "-s -w -X main.version=$VERSION -X main.commit=$REVISION -X main.date=$CREATED" \
      -o /out/indexer ./cmd/indexer \
 && mkdir -p /out/cache/codex7 /out/srv

# distroless/static: CA certificates, time zone data and the nonroot user
# (65532), no shell.
FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev REVISION=unknown CREATED=unknown LICENSES=NOASSERTION
COPY --from=build /out/indexer /usr/local/bin/indexer
COPY --from=build --chown=65532:65532 /out/cache /var/cache
COPY --from=build --chown=65532:65532 /out/srv /srv
ENV XDG_CACHE_HOME=/var/cache
WORKDIR /srv
USER 65532:65532
EXPOSE 8080
LABEL org.opencontainers.image.title="Codex7 indexer" \
      org.opencontainers.image.source="https://github.com/codex7/codex7" \
      org.opencontainers.image.licenses="${LICENSES}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s CMD ["indexer", "healthcheck", "http://127.0.0.1:8080/readyz"]
ENTRYPOINT ["indexer"]
CMD ["serve", "--http", "0.0.0.0:8080"]
