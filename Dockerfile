# One image for every Yardstick service; the command picks the service (see docker-compose.yml).

# The web UI's front-end packages, from the npm registry as pinned by package-lock.json
# (the same files `make ui-assets` copies).
FROM node:20-slim AS ui-assets
WORKDIR /ui
COPY services/coordinator/ui/frontend/package.json services/coordinator/ui/frontend/package-lock.json \
     services/coordinator/ui/frontend/copy-vendor.sh ./
RUN npm ci --no-audit --no-fund --loglevel=error && sh copy-vendor.sh vendor

FROM python:3.11-slim
WORKDIR /app
ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY pyproject.toml README.md alembic.ini ./
COPY sdk ./sdk
COPY shared ./shared
COPY services ./services
COPY --from=ui-assets /ui/vendor ./services/coordinator/ui/static/vendor
# the SDK first: the server depends on yardstick-sdk (not on PyPI yet); the shipped data is package
# data of shared.shipped_data
RUN pip install --no-cache-dir ./sdk .
# Non-root at run time.
RUN useradd --create-home yardstick
USER yardstick
CMD ["python", "-m", "services.coordinator.main"]
