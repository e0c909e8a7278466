# Sightline gateway + dashboard in one image. Build: docker compose build; run: docker compose up.
FROM node:20-bookworm-slim AS base
RUN npm install -g pnpm@10
WORKDIR /app

FROM base AS build
COPY pnpm-workspace.yaml pnpm-lock.yaml package.json .npmrc ./
COPY shared/package.json shared/
COPY models/package.json models/
COPY gateway/package.json gateway/
COPY web/package.json web/
COPY e2e/package.json e2e/
RUN pnpm install --frozen-lockfile
COPY tsconfig.base.json ./
COPY shared shared
COPY models models
COPY gateway gateway
COPY web web
RUN pnpm --filter @sightline/web build

FROM base AS runtime
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0
COPY --from=build /app /app
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
USER node
CMD ["pnpm", "--filter", "@sightline/gateway", "start"]
