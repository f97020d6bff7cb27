# syntax=docker/dockerfile:1
# Build stage: full install (TypeScript), compile to dist/. Optional packages (the embedded
# PostgreSQL's ~60 MB of programs) are not needed to compile.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
RUN npm ci --ignore-scripts --omit=optional
COPY src ./src
COPY seeds ./seeds
COPY test ./test
COPY bench ./bench
RUN npx tsc -p tsconfig.json

# Runtime stage: production dependencies only, non-root user, `svc serve` by default. Containers
# use DATABASE_URL, so the optional embedded PostgreSQL is left out (`svc start` without
# DATABASE_URL then says so in one line).
FROM node:20-bookworm-slim AS runtime
# the operations port (/livez, /readyz, /metrics) is 9464 for every role: one process per container
ENV NODE_ENV=production SVC_ENV=production HOST=0.0.0.0 PORT=8000 SVC_OPS_HOST=0.0.0.0 SVC_OPS_PORT=9464 SVC_WORKER_OPS_PORT=9464
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/seeds ./dist/seeds
COPY bin ./bin
COPY config ./config
RUN useradd --system --uid 10001 --home /app svc && mkdir -p /app/.svc && chown svc /app/.svc
USER svc
EXPOSE 8000 9464
# /readyz on the operations port, which serve and worker alike answer (node's fetch: the image has no curl)
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s CMD node -e "fetch('http://127.0.0.1:'+process.env.SVC_OPS_PORT+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/svc"]
CMD ["serve"]
