"""The Slack app, wired in one place: the services Slack needs, and the Bolt app over them.

    slack_services(settings, corpus)   the services with Slack's poster and directory
    build_app(settings, services)      a Bolt App with every listener registered

Only wiring lives here. Nothing runs at import time, and building the app makes no call
to Slack (auth.test is deferred to the first request).

The migration in place (bot/store/tenancy.py): a store from before workspaces holds rows
with no team. In token mode SLACK_BOT_TOKEN serves one workspace, so they are its own:
`serve` asks auth.test which one at start (`learn_home_workspace`) and `tenancy.adopt`s
them, and, should Slack not answer then, the first request does, from Bolt's own auth.test.
In OAuth mode the same happens for the workspace of SLACK_BOT_TOKEN when one is set too;
without one the rows stay the console's (tenancy.LOCAL): no installer inherits them.
"""

from __future__ import annotations

import logging
import secrets

from apscheduler.schedulers.base import BaseScheduler
from slack_bolt import App

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
from bot.slack.listeners import (
    settings as workspace_settings,
)
from bot.slack.listeners.actions import team_id_of
from bot.slack.oauth import PaperbotOAuthFlow, oauth_flow
from bot.slack.posting import SlackDigestPoster, SlackDirectory
from bot.slack.tokens import WorkspaceClients
from bot.store import tenancy
from bot.store.claims import Ledger
from bot.store.database import Store
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
        # A feed is the workspaces' that added it (source_teams; LOCAL's rows: the home
        # workspace's): each one's admins are told, with its own token, and no other
        # workspace learns the feed's address.
        home = services.workspaces.home_team()
        teams = dict.fromkeys(team or home for team in services.sources.sources.teams_of(source.id)) or {home: None}
        for team in teams:
            client = background.for_team(team)
            if client is None:
                logger.warning("feed %s is failing; workspace %r is not installed to tell its admins in", source.target, team)
                continue
            tell_admins_failing(client, corpus, services.admins_of(team), source, team_id=team)

    poster = SlackDigestPoster(background)
    services = build_services(
        settings, corpus, clock=clock, scheduler=scheduler,
        poster=poster,
        directory=SlackDirectory(lookups, clock=clock),
        on_feed_failing=on_feed_failing,
    )  # fmt: skip
    poster.known_channel = services.subscriptions.last_channel  # DMs opened once, not every morning
    return services


def adopt_home_workspace(store: Store, team_id: str) -> bool:
    """Give `team_id` the rows from before workspaces (once); False when that could not be done now."""
    if not team_id:
        return False
    try:
        tenancy.adopt(store, team_id)
        return True
    except Exception as error:  # the store is away: the next start or request tries again
        logger.warning("could not give workspace %s the rows from before workspaces: %s", team_id, type(error).__name__)
        return False


def learn_home_workspace(settings: Settings, store: Store) -> str:
    """At start: which workspace SLACK_BOT_TOKEN serves (one auth.test), its rows adopted; '' unknown.

    OAuth mode without SLACK_BOT_TOKEN has no workspace of its own: rows from before
    workspaces stay LOCAL (the console's), and each installed workspace starts empty.
    """
    if not settings.slack_bot_token:
        if settings.oauth_enabled and not tenancy.home_team(store):
            logger.info("installs from a link and no SLACK_BOT_TOKEN: rows from before workspaces stay the console's")
        return ""
    try:
        team_id = str(build_client(settings, Patience.BACKGROUND).auth_test().get("team_id") or "")
    except Exception as error:  # Slack unreachable at start: the first request learns it (build_app)
        logger.warning("auth.test at start failed (%s); the first request will tell the bot its workspace", type(error).__name__)
        return ""
    return team_id if adopt_home_workspace(store, team_id) else ""


def _oauth_options(oauth: PaperbotOAuthFlow | None) -> dict:
    """App() options for installs from a link; none in single-workspace token mode."""
    if oauth is None:
        return {}
    return {
        "oauth_flow": oauth,
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
    installations = Installations(services.corpus.store) if settings.oauth_enabled else None
    oauth = oauth_flow(settings, installations, client, workspaces=services.workspaces) if installations is not None else None
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
        def pace_across_instances(context, body, next):  # noqa: A002 (Bolt passes `next` by this name)
            # Installs from a link: each workspace's calls count in its own quota (Slack's limits are per
            # workspace); an event of an org-wide install has no team in Bolt's context, only in the payload.
            team_id = (context.team_id or team_id_of(body)) if settings.oauth_enabled else ""
            context["client"] = paced_like(context.client, ledger, team_id=team_id)
            return next()

    if oauth is None:
        _learn_workspace_from_requests(app, services.corpus.store)
    alerts = AdminAlerts(services.admins_of, services.corpus, settings.data_dir)
    events.register(app, services)  # first: a retried event reaches no listener
    if oauth is not None:
        installs.register(app, oauth.settings.installation_store, installations, services.workspaces)
    # Before the DM listener's catch-all `message`: Bolt runs only the first match.
    uploads.register(app, services, token=settings.slack_bot_token, alerts=alerts)
    members.register(app, services)
    commands.register(app, services, ack_budget=settings.ack_budget_ms / 1000, alerts=alerts)
    actions.register(app, services, alerts=alerts)
    home.register(app, services, alerts=alerts)
    workspace_settings.register(app, services, alerts=alerts)
    messages.register(app, services, alerts=alerts)
    reactions.register(app, services)
    return app


def _learn_workspace_from_requests(app: App, store: Store) -> None:
    """Token mode: until the rows from before workspaces have their workspace, each request
    adopts them for the bot's own (Bolt's auth.test of SLACK_BOT_TOKEN, made once, before
    any listener runs), so the first listener already reads them under it."""
    learned = [False]

    @app.middleware
    def learn_the_workspace(context, next):  # noqa: A002 (Bolt passes `next` by this name)
        if not learned[0]:
            authorized = context.authorize_result
            learned[0] = adopt_home_workspace(store, (authorized.team_id if authorized is not None else "") or "")
        return next()
