# netsim in a container: the model engine's fleets on Kubernetes (deploy/kubernetes/) or any
# container runner. docs/fleets.md says how to build, push and run it.
#
#   docker build -t netsim .
#   docker run --rm netsim profiles list
#   docker run --rm --user "$(id -u):$(id -g)" -v "$PWD/reports:/reports" netsim \
#       bench --engine model --profile lte-tunnel --duration 24h --phones 100 --out /reports
#
# The build stage and the runtime stage are the same Debian release (12, bookworm), so the
# binary finds the C library it was linked against. The Swift runtime is linked in
# (--static-swift-stdlib): the runtime image needs only libpcap and the certificates.

FROM swift:6.3-bookworm AS build
# The versions are bookworm's own, fixed by the base image's release; pinning them would break
# the build at each Debian point release.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpcap-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The package cache (.build) survives between builds of the image (BuildKit's cache mount), so
# a change to the sources rebuilds only what it touches; the binary is copied out of it. Debug
# information is stripped; the symbols stay for the runtime's crash backtraces.
RUN --mount=type=cache,target=/src/.build \
    swift build -c release --product netsim --static-swift-stdlib \
    && install -D -m 0755 .build/release/netsim /out/netsim \
    && strip --strip-debug /out/netsim

FROM debian:bookworm-slim
# As above: bookworm's own versions.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpcap0.8 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 netsim \
    && useradd --system --no-log-init --uid 10001 --gid netsim --home-dir /nonexistent --no-create-home \
        --shell /usr/sbin/nologin netsim \
    && install -d -o netsim -g netsim /reports
COPY --from=build /out/netsim /usr/local/bin/netsim
# The repository's profile, client and workload files, for `--profile profiles/subway.yaml`,
# `--client clients/grpc-tuned.yaml` or `--workload workloads/feed.yaml` as in the docs. The
# built-in profiles (`--profile lte-tunnel`) are compiled into the binary.
COPY profiles /usr/share/netsim/profiles
COPY clients /usr/share/netsim/clients
COPY workloads /usr/share/netsim/workloads
WORKDIR /usr/share/netsim
LABEL org.opencontainers.image.title="netsim" \
      org.opencontainers.image.description="A mobile-network emulator and REST/WebSocket/gRPC benchmark"
# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
ENTRYPOINT ["netsim"]
CMD ["--help"]
