"""Logging set-up: one stderr handler, and secrets redacted from every record."""

from __future__ import annotations

import logging
import re
import sys

from bot.config import Settings

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# Slack's token shapes (bot xoxb-, user xoxp-, rotating xoxe.xoxb-, refresh xoxe-, app xapp-):
# installs from a link bring tokens no setting names (bot/slack/oauth.py), and slack_sdk logs
# oauth.v2.access answers whole at DEBUG.
SLACK_TOKEN = re.compile(r"\b(?:xox[a-z](?:\.xox[a-z])?|xapp)-[A-Za-z0-9-]+")


class RedactSecrets(logging.Filter):
    """Replace every secret in a log record (message, args, traceback) with [redacted]."""

    def __init__(self, secrets: tuple[str, ...]):
        super().__init__()
        self.secrets = tuple(s for s in secrets if s)

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "[redacted]")
        return SLACK_TOKEN.sub("[redacted]", text)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        record.msg, record.args = self.redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


def install_secret_filter(secrets: tuple[str, ...], root: logging.Logger | None = None) -> RedactSecrets:
    """Attach a RedactSecrets filter to every handler of the root logger (adding one if none).

    Handler filters see records from every logger (slack_sdk logs request headers at
    DEBUG); logger filters would only see records logged on that exact logger.
    """
    root = root or logging.getLogger()
    if not root.handlers:
        logging.basicConfig(format=FORMAT)
    redactor = RedactSecrets(secrets)
    for handler in root.handlers:
        if not any(isinstance(f, RedactSecrets) for f in handler.filters):
            handler.addFilter(redactor)
    return redactor


def configure_logging(settings: Settings, stream=None) -> None:
    """Log to stderr at the configured level, with the settings' secrets redacted."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level if settings.log_level in logging.getLevelNamesMapping() else "INFO")
    install_secret_filter(settings.secrets, root)
