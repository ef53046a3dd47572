# Multi-stage build: compile with dev dependencies, run with production ones only.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
# The heap sized for the 512 MiB the compose file gives a replica (Node would otherwise size it
# from the host's memory and grow it lazily); raise both together. The young generation is capped
# at 16 MiB per semi-space (Node 24 grew it to 64 on this machine: 128 MiB of new space held from
# start). bench/run.js uses this value.
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data NODE_OPTIONS="--max-old-space-size=256 --max-semi-space-size=32"
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The API serves the MCP server of mcp/ (over the SDK of sdk/): node_modules links to both packages.
COPY --from=build /app/sdk/package.json ./sdk/package.json
COPY --from=build /app/sdk/dist ./sdk/dist
COPY --from=build /app/mcp/package.json ./mcp/package.json
COPY --from=build /app/mcp/dist ./mcp/dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/apps/api/apps/api/src/main.js"]
