# syntax=docker/dockerfile:1
# Sightline's production image: the gateway bundled to plain JavaScript, the native modules it loads
# (this platform's binaries only), the models and the dashboard build; no build tools, no sources.
# docs/DEPLOY.md has the commands and the reasons. In short:
#   docker build -t sightline .                      (podman build --format docker -t sightline .)
#   docker run --rm -p 127.0.0.1:8080:8080 -e SIGHTLINE_TLS=off -e SIGHTLINE_AUTH=none sightline
#   docker compose up                                (the same, with limits and a healthcheck)

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: the whole toolchain (pnpm, TypeScript sources, Vite, esbuild); none of it is shipped --------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json pnpm-workspace.yaml pnpm-lock.yaml .npmrc ./
# The pnpm release the workspace names in package.json ("packageManager").
RUN npm install -g --no-audit --no-fund "$(node -p 'require("./package.json").packageManager')"
# Every workspace package's manifest (pnpm checks the lockfile against them); installed: only what the
# gateway and the dashboard build need.
COPY shared/package.json shared/
COPY models/package.json models/
COPY gateway/package.json gateway/
COPY web/package.json web/
COPY bench/package.json bench/
COPY bench/harness/package.json bench/harness/
COPY e2e/package.json e2e/
COPY deploy/package.json deploy/
# The gateway's postinstall fetches the FFmpeg it decodes video with (FFmpeg 9.0.2, the static build in PyPI's
# imageio-ffmpeg wheel) and checks it against the sha256 pinned beside the script; here a failed fetch fails
# the build instead of leaving the image without video.
COPY gateway/scripts/fetch-ffmpeg.mjs gateway/scripts/fetch-ffmpeg.json gateway/scripts/
RUN SIGHTLINE_FFMPEG_FETCH=required pnpm install --frozen-lockfile --filter '@sightline/gateway...' --filter '@sightline/web...'
COPY tsconfig.base.json ./
COPY shared shared
COPY models models
COPY gateway gateway
COPY web web
COPY deploy/image deploy/image
# The dashboard (no source maps), the gateway bundle (gateway/dist/*.mjs), then /app: the run-time tree.
RUN pnpm --filter @sightline/web build \
 && pnpm --filter @sightline/gateway build \
 && node deploy/image/assemble.mjs /app \
 && cp deploy/image/healthcheck.mjs /app/healthcheck.mjs

# ---- runtime root: the base image trimmed to what running node needs ----------------------------------
# A file deleted in a later layer still costs its bytes in the image, so the trimming happens here and
# the result is copied as one layer below. Gone: npm, npx, corepack, yarn (the image installs nothing),
# man pages, documentation but the copyright files, and translations (as in Debian's own slim images;
# node reads none of them): ~70 MB of the base.
FROM ${NODE_IMAGE} AS runtime-root
# tini (Debian's package) will be PID 1: see ENTRYPOINT. jemalloc: see the ENV below.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tini libjemalloc2 \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
 && rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
           /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* /root/.npm \
 && rm -rf /usr/share/man/* /usr/share/info/* \
 && find /usr/share/doc -mindepth 1 ! -type d ! -name copyright -delete \
 && find /usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} + \
 && install -d -o 1000 -g 1000 -m 0700 /data

# ---- runtime ------------------------------------------------------------------------------------------
FROM scratch
LABEL org.opencontainers.image.title="sightline" \
      org.opencontainers.image.description="Live object-detection gateway and dashboard" \
      org.opencontainers.image.licenses="MIT"
# Ownership comes along (the base's files root's, /data the node user's).
COPY --from=runtime-root / /
COPY --from=build /app /app
WORKDIR /app
# In a container the gateway listens on every address, which makes it "exposed" (docs/SECURITY.md):
# HTTPS with a self-signed certificate kept in /data and a token, unless told otherwise
# (SIGHTLINE_TLS=off behind a TLS-terminating proxy; SIGHTLINE_TOKEN; SIGHTLINE_AUTH=none).
# Memory goes back to the system once frames are done with it (docs/RELIABILITY.md, *Where the memory goes*):
# glibc's 16 arenas kept 276-347 MB freed but resident after a hostile load; jemalloc, decaying dirty pages
# within a second, returned all but 31-37 MB. A bare soname: the path does not depend on the architecture.
# V8's young generation is sized from the container's limit, not the host's RAM, either way.
# Video: each stream's decoder is FFmpeg 9.0.2 (gateway/.ffmpeg/9.0.2/ffmpeg: fetched from PyPI's imageio-ffmpeg
# wheel in the build stage, sha256 pinned; an unmodified GPLv3 executable run as a separate process), started
# through ffmpeg-limited.sh with an empty environment and a 512 MiB address-space limit of its own, so a
# hostile stream fails its own decoder, not the container (docs/SECURITY.md, "Video decoding").
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LD_PRELOAD=libjemalloc.so.2 \
    MALLOC_CONF=background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0 \
    NODE_OPTIONS=--max-semi-space-size=16 \
    NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SIGHTLINE_DATA_DIR=/data \
    SIGHTLINE_FFMPEG=/app/ffmpeg-limited.sh
# The `node` user of the base image, by number: Kubernetes' runAsNonRoot can only verify a numeric user.
# Everything under /app belongs to root and is read-only to it; /data is its one writable place.
USER 1000:1000
EXPOSE 8080
# Readiness, not liveness: a draining gateway turns unhealthy at once, as a load balancer should see it.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 CMD ["node", "/app/healthcheck.mjs"]
STOPSIGNAL SIGTERM
# tini is PID 1 and runs node as its child: it forwards SIGTERM (node as PID 1 would ignore it until the
# gateway has installed its handler, i.e. during the seconds models load) and reaps zombies; the same
# in docker run, compose and Kubernetes, which has no `init: true`.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "gateway/dist/main.mjs"]
