# Small production image: `npm start` semantics with DATABASE_URL (and APP_SECRET) required.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --omit=optional

FROM node:24-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# The fonts embedded in PDFs (found from dist/ by walking up to the project root).
COPY --from=build --chown=node:node /app/libs/documents/assets ./libs/documents/assets
# The API guide, served at /docs/api-guide.md (the OpenAPI document links to it).
COPY --from=build --chown=node:node /app/docs/api-guide.md ./docs/api-guide.md
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/apps/api/apps/api/src/main.js"]
