# syntax=docker/dockerfile:1
# Not exercised on our development machines (no Docker engine there); kept correct by reading.
# Node 22 LTS: the oldest line every dependency accepts (package.json "engines").

# Compiles src/ to dist/ and builds the console into dist/console, with the development dependencies.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY console ./console
COPY scripts ./scripts
RUN npm run build

# The production dependencies only: no transpiler, test runner or linter, and no embedded
# PostgreSQL (an optional dependency for development; the image always has DATABASE_URL).
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund

FROM node:22-bookworm-slim AS runtime
# tini runs as PID 1: it forwards SIGTERM to node and reaps orphaned children.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
# HOST=0.0.0.0: the server binds loopback by default; in a container it must answer on every
# interface for the published port to reach it.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
COPY --chown=node:node migrations ./migrations
USER node
EXPOSE 3000
# Liveness, not readiness: /healthz answers while the process runs, so a database outage does not
# mark every container unhealthy and get them restarted (readiness, /readyz, is for the load
# balancer: see docs/operations.md). The start period covers migrations applied at start; a long
# one (a table rewrite) is better run first with `node dist/cli/admin.js migrate`.
HEALTHCHECK --interval=10s --timeout=3s --start-period=600s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# By default the server applies pending migrations (serialised by an advisory lock across
# instances), then serves; with MIGRATE_ON_START=false it applies none and refuses to start while
# one is pending. One-off migration before a rollout:
#   docker compose run --rm app node dist/cli/admin.js migrate
# On SIGTERM it drains in-flight requests, stops its workers and exits 0 within
# SHUTDOWN_TIMEOUT_MS. Admin commands: `docker compose exec app node dist/cli/admin.js --help`.
ENTRYPOINT ["/usr/bin/tini", "--"]
# --max-semi-space-size=8 (MiB): a smaller young generation, collected more often in shorter
# pauses; with it no young-generation pause passed 50 ms while 6 MiB batches and 16 MiB uploads
# arrived (docs/performance.md, "Large requests and the event loop"). As in `npm start`.
CMD ["node", "--enable-source-maps", "--max-semi-space-size=8", "dist/server.js"]
