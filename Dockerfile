# One image for every cairn process: `cairn api`, `cairn worker <stage>`, `cairn start`.
FROM node:20.19.5-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production TZ=UTC
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENTRYPOINT ["node", "bin/cairn.mjs"]
CMD ["start"]
