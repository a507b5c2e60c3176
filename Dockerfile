# paperbot in one container: `docker build -t paperbot .`, then see README.md, "Deploying".
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# An unprivileged user owns only the data folder; the code stays read-only to it.
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin paperbot \
    && mkdir /data && chown paperbot:paperbot /data

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY bot ./bot
COPY seeds ./seeds
RUN pip install . && python -m compileall -q bot

ENV PAPERBOT_DATA_DIR=/data \
    PAPERBOT_SEEDS_DIR=/app/seeds \
    PAPERBOT_HOST=0.0.0.0 \
    PORT=3000
VOLUME ["/data"]
EXPOSE 3000
USER paperbot

# /healthz is 503 while the store and index are prepared (the first start ingests the
# seeds; a large index may be rebuilt), 200 once ready. Socket Mode has no HTTP to ask.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
    CMD ["python", "-m", "bot.healthcheck"]

# paperbot is PID 1 here and handles SIGTERM itself (bot/cli.py): `docker stop` lets it
# close the HTTP server, the scheduler and the store, then exit 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["python", "-m", "bot"]
CMD ["serve"]
