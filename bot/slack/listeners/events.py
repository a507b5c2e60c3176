"""Each Slack event is acted on once, however often Slack delivers it.

Slack re-sends an event whose ack it did not see in time (`X-Slack-Retry-Num: 1..3`,
`X-Slack-Retry-Reason: http_timeout`; in Socket Mode the envelope's `retry_attempt`,
which Bolt turns into the same header). Every delivery carries the event's `event_id`;
the first one claims it in the store (Corpus.claim_event: a table keyed by the
workspace, so a restart or a second instance on the same data folder agrees), later ones are acked with 200 and
nothing else. This is one global middleware, not a check in each listener, so a new
event listener is covered without knowing it.

An event is claimed when it arrives, before its listener runs: at most once. A process
that dies between the claim and the work loses that one event rather than risking a
second reply, a second ingest, a second Home publish.
"""

from __future__ import annotations

import logging

from slack_bolt import App, BoltResponse

from bot.services import Services

logger = logging.getLogger(__name__)


def event_id_of(body: dict) -> str:
    """The Events API id of an event callback (empty for commands, actions, everything else)."""
    if not isinstance(body, dict) or body.get("type") != "event_callback":
        return ""
    return str(body.get("event_id") or "")


def register(app: App, services: Services) -> None:
    """Install the once-only middleware on `app`; the store records the event ids."""
    corpus = services.corpus

    @app.middleware
    def act_on_each_event_once(request, body, next):  # noqa: A002 (Bolt's argument name)
        event_id = event_id_of(body)
        if not event_id:
            return next()
        try:
            first = corpus.claim_event(event_id, str(body.get("team_id") or ""))
        except Exception:  # the store is down or full: better twice than never
            logger.warning("could not record event %s; handling it without the retry check", event_id, exc_info=True)
            return next()
        if first:
            return next()
        retry = _header(request, "x-slack-retry-num")
        reason = _header(request, "x-slack-retry-reason")
        logger.info(
            "event %s already handled (retry %s, %s); acknowledged, not acted on again", event_id, retry or "-", reason or "-"
        )
        return BoltResponse(status=200, body="")


def _header(request, name: str) -> str:
    values = (request.headers or {}).get(name) or []
    return str(values[0]) if values else ""
