# One image for every Yardstick service; the command picks the service (see docker-compose.yml).
FROM python:3.11-slim
WORKDIR /app
ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY pyproject.toml README.md alembic.ini ./
COPY shared ./shared
COPY services ./services
COPY datasets ./datasets
RUN pip install --no-cache-dir .
# Non-root at run time.
RUN useradd --create-home yardstick
USER yardstick
CMD ["python", "-m", "services.coordinator.main"]
