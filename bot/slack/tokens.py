"""Each workspace's own Web API client, for the Slack work that runs outside a request.

A request brings its client (Bolt authorizes it with the workspace's token); a digest at
09:00, the lookups of the directory and an admin's DM have no request, so they ask here:

    clients.for_team(team_id)   a WebClient with that workspace's bot token, or None

Token mode (no client id): `SLACK_BOT_TOKEN`, whatever the team, as always. Installs from a
link (bot/slack/oauth.py): the bot token of the workspace's installation in the store (or of
its org's, for a workspace inside an org-wide Enterprise Grid install),
rotated first when the app has token rotation on and it expires within
`PAPERBOT_SLACK_TOKEN_ROTATION_MINUTES` (the rotated token is saved, as Bolt saves one); None
when the workspace has no installation (uninstalled, never installed): nothing is sent for it
with another workspace's token. The one exception is the store's home workspace
(tenancy.home_team, or rows with no workspace yet) when `SLACK_BOT_TOKEN` is set too: a
token-mode deployment that starts taking installs keeps posting its own digests with it.

Clients are kept per workspace and token (a rotation makes a new one), each paced in its own
workspace's quota of the shared ledger (bot/slack/client.py).
"""

from __future__ import annotations

import logging
import threading
import time

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.oauth.token_rotation import TokenRotator

from bot.config import Settings
from bot.slack.client import Patience, build_client
from bot.slack.oauth import StoreInstallationStore
from bot.store import tenancy
from bot.store.claims import Ledger
from bot.store.installs import Installations

logger = logging.getLogger(__name__)


class OneClient:
    """One client for every workspace: a test's, or a tool's that talks to one workspace."""

    per_workspace = False

    def __init__(self, client: WebClient):
        self.client = client

    def for_team(self, team_id: str) -> WebClient | None:
        return self.client


class WorkspaceClients:
    """The client of each workspace, with `patience`'s timeouts (see the module's docstring)."""

    def __init__(
        self,
        settings: Settings,
        patience: Patience,
        *,
        ledger: Ledger | None = None,
        installations: Installations | None = None,
    ):
        self.settings = settings
        self.patience = patience
        self.ledger = ledger
        self.installations = installations if settings.oauth_enabled else None
        self._store = StoreInstallationStore(self.installations) if self.installations is not None else None
        self._clients: dict[tuple[str, str], WebClient] = {}
        self._lock = threading.Lock()

    @property
    def per_workspace(self) -> bool:
        """True when each workspace has its own token (installs from a link)."""
        return self._store is not None

    def for_team(self, team_id: str) -> WebClient | None:
        """`team_id`'s client; None when that workspace has no installation (OAuth mode only)."""
        if self._store is None:
            return self._client("", self.settings.slack_bot_token)  # token mode: one workspace, one quota
        token = self._bot_token(team_id)
        if token:
            return self._client(team_id, token)
        if self.settings.slack_bot_token and self._is_home(team_id):
            # A token-mode workspace that now also takes installs from a link: SLACK_BOT_TOKEN is
            # still its own (its rows, adopted at a token-mode start, name it), until it installs.
            return self._client(team_id, self.settings.slack_bot_token)
        return None

    def _is_home(self, team_id: str) -> bool:
        assert self.installations is not None
        return team_id in (tenancy.LOCAL, tenancy.home_team(self.installations.store))

    def _client(self, team_id: str, token: str) -> WebClient:
        with self._lock:
            client = self._clients.get((team_id, token))
            if client is None:
                client = build_client(self.settings, self.patience, ledger=self.ledger, token=token, team_id=team_id)
                self._clients = {k: v for k, v in self._clients.items() if k[0] != team_id}  # an old token's client goes
                self._clients[(team_id, token)] = client
            return client

    def _bot_token(self, team_id: str) -> str:
        assert self._store is not None and self.installations is not None
        if not team_id:
            return ""
        serving = self.installations.serving(team_id)  # its own installation, or its org's (Enterprise Grid)
        if serving is None:
            return ""
        enterprise_id, installed_team = serving
        bot = self._store.find_bot(
            enterprise_id=enterprise_id or None, team_id=installed_team or None, is_enterprise_install=not installed_team
        )
        if bot is None:
            return ""
        expires_at = bot.bot_token_expires_at
        minutes = self.settings.slack_token_rotation_minutes
        if bot.bot_refresh_token and expires_at and expires_at - time.time() < minutes * 60:
            rotator = TokenRotator(
                client_id=self.settings.slack_client_id,
                client_secret=self.settings.slack_client_secret,
                client=build_client(self.settings, self.patience, token=""),  # SLACK_API_BASE_URL, no token
            )
            try:
                rotated = rotator.perform_bot_token_rotation(bot=bot, minutes_before_expiration=minutes)
            except (SlackApiError, OSError) as error:
                # The old token may still work until it expires; Slack's answer to the post says for sure.
                logger.warning("rotating workspace %s's token failed: %s", team_id, type(error).__name__)
                rotated = None
            if rotated is not None:
                self._store.save_bot(rotated)
                logger.info("workspace %s: bot token rotated for background work", team_id)
                bot = rotated
        return bot.bot_token or ""
