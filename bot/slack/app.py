"""The Slack app, wired in one place: the services Slack needs, and the Bolt app over them.

    slack_services(settings, corpus)   the services with Slack's poster and directory
    build_app(settings, services)      a Bolt App with every listener registered

Only wiring lives here. Nothing runs at import time, and building the app makes no call
to Slack (auth.test is deferred to the first request).
"""

from __future__ import annotations

import logging
import secrets

from apscheduler.schedulers.base import BaseScheduler
from slack_bolt import App
from slack_bolt.oauth.oauth_settings import OAuthSettings

from bot.clock import Clock, system_clock
from bot.config import Settings
from bot.corpus import Corpus
from bot.feeds.sources import Source
from bot.i18n import t
from bot.services import Services, build_services
from bot.slack.alerts import AdminAlerts, tell_admins_failing
from bot.slack.client import Patience, build_client, paced_like
from bot.slack.listeners import (
    actions,
    commands,
    events,
    home,
    installs,
    members,
    messages,
    reactions,
    uploads,
)
from bot.slack.oauth import oauth_settings
from bot.slack.posting import SlackDigestPoster, SlackDirectory
from bot.slack.tokens import WorkspaceClients
from bot.store import tenancy
from bot.store.claims import Ledger
from bot.store.installs import Installations

logger = logging.getLogger(__name__)


class _DropMessage(logging.Filter):
    def __init__(self, fragment: str):
        super().__init__()
        self.fragment = fragment

    def filter(self, record: logging.LogRecord) -> bool:
        return self.fragment not in str(record.msg)


def slack_services(
    settings: Settings, corpus: Corpus, *, clock: Clock = system_clock, scheduler: BaseScheduler | None = None
) -> Services:
    """The services `serve` runs: digests posted and people looked up through Slack's Web
    API, and admins told by DM when a feed fails. Tests build theirs here too.

    None of it runs in a request, so each call takes its workspace's own client
    (bot/slack/tokens.py): SLACK_BOT_TOKEN in token mode, the installation's bot token when
    workspaces install from a link."""
    # Several instances on one store: digests, admin DMs and lookups take turns per channel
    # and per method (Slack's tiers) across all of them, in each workspace's own quota.
    ledger = Ledger(corpus.store) if settings.shared_database else None
    installations = Installations(corpus.store) if settings.oauth_enabled else None
    background = WorkspaceClients(settings, Patience.BACKGROUND, ledger=ledger, installations=installations)
    lookups = WorkspaceClients(settings, Patience.LOOKUP, ledger=ledger, installations=installations)

    def on_feed_failing(source: Source) -> None:
        # PAPERBOT_ADMINS are the operator's, in the workspace that adopted the store's first rows.
        client = background.for_team(tenancy.home_team(corpus.store))
        if client is None:
            logger.warning("feed %s is failing; no installed home workspace to tell its admins in", source.target)
            return
        tell_admins_failing(client, corpus, settings.admins, source)

    return build_services(
        settings, corpus, clock=clock, scheduler=scheduler,
        poster=SlackDigestPoster(background),
        directory=SlackDirectory(lookups, clock=clock),
        on_feed_failing=on_feed_failing,
    )  # fmt: skip


def _oauth_options(oauth: OAuthSettings | None) -> dict:
    """App() options for installs from a link; none in single-workspace token mode."""
    if oauth is None:
        return {}
    return {
        "oauth_settings": oauth,
        "installation_store_bot_only": True,  # paperbot asks for no user scopes
        # What a workspace whose installation is gone is told (Bolt's own words are English only).
        "user_facing_authorize_error_message": t("oauth.not_installed", "en") + "\n" + t("oauth.not_installed", "zh"),
    }


def build_app(settings: Settings, services: Services) -> App:
    """Build the Bolt app and register every listener, in the order Bolt needs them.

    With a client id and secret (settings.oauth_enabled) the app runs Slack's OAuth flow
    (bot/slack/oauth.py) and answers each workspace with the token it installed with;
    otherwise with SLACK_BOT_TOKEN, as always.
    """
    bolt_logger = logging.getLogger("bot.slack.bolt")
    # Several instances on one store: listeners' calls (views.publish, ephemerals) count in
    # the shared ledger too, and a Retry-After told to one instance holds the method for all.
    ledger = Ledger(services.corpus.store) if settings.shared_database else None
    client = build_client(settings, ledger=ledger)  # Bolt takes the bot token from the client
    oauth = oauth_settings(settings, Installations(services.corpus.store), client) if settings.oauth_enabled else None
    # App() also reads SLACK_BOT_TOKEN from the environment and then warns that the client's
    # token wins; it is the same token, so the warning is only noise at every start.
    quiet = _DropMessage("token` will be unused")
    bolt_logger.addFilter(quiet)
    try:
        app = App(
            name="paperbot",
            client=client,
            # Socket Mode needs no signing secret; an unguessable one keeps HTTP requests out.
            signing_secret=settings.slack_signing_secret or secrets.token_hex(32),
            token_verification_enabled=False,
            logger=bolt_logger,
            **_oauth_options(oauth),
        )
    finally:
        bolt_logger.removeFilter(quiet)
    if ledger is not None:
        # Bolt gives each request a plain WebClient made from the app's (its retry handlers
        # included); a global middleware swaps it for a paced one before any listener runs.
        @app.middleware
        def pace_across_instances(context, next):  # noqa: A002 (Bolt passes `next` by this name)
            # Installs from a link: each workspace's calls count in its own quota (Slack's limits are per workspace).
            team_id = (context.team_id or "") if settings.oauth_enabled else ""
            context["client"] = paced_like(context.client, ledger, team_id=team_id)
            return next()

    alerts = AdminAlerts(settings.admins, services.corpus, settings.data_dir)
    events.register(app, services)  # first: a retried event reaches no listener
    if oauth is not None:
        installs.register(app, oauth.installation_store)
    # Before the DM listener's catch-all `message`: Bolt runs only the first match.
    uploads.register(app, services, token=settings.slack_bot_token, alerts=alerts)
    members.register(app, services)
    commands.register(app, services, ack_budget=settings.ack_budget_ms / 1000, alerts=alerts)
    actions.register(app, services, alerts=alerts)
    home.register(app, services, alerts=alerts)
    messages.register(app, services, alerts=alerts)
    reactions.register(app, services)
    return app
