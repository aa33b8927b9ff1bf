# One image for every cairn process: `cairn api`, `cairn worker <stage>`, `cairn start`.
# Node 24, the current LTS: on the same 2 cores it makes about 19% more
# artifacts searchable a second than Node 20 (bench/README.md, eighth pass).
FROM node:24.21.0-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production TZ=UTC
# patches/ before the install: its postinstall applies them (patch-package).
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENTRYPOINT ["node", "bin/cairn.mjs"]
CMD ["start"]
