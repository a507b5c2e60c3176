"""Install from a link: Slack's OAuth v2 flow through Bolt, kept in paperbot's own store.

With a client id and secret (Settings.oauth_enabled), `serve` in HTTP mode answers
GET /slack/install (paperbot's page, in the browser's language (Accept-Language, or ?lang=),
saying what paperbot does and asks for, with an Add to Slack button; Bolt sets the state cookie) and
GET /slack/oauth_redirect (Slack sends the installer back there with a code: Bolt checks
the state, trades the code at oauth.v2.access, checks the new token with auth.test and
saves the installation). Every later request from that workspace is answered with its own
bot token (Bolt's InstallationStoreAuthorize looks it up here), refreshed before it expires
when the app has token rotation on. The pages after Slack (installed, or what went wrong
and what to do) are in the browser's language too.

Org-wide installs (Enterprise Grid): oauth.v2.access answers `is_enterprise_install` with an
enterprise and no team; the installation is kept under the enterprise alone, and Bolt's
authorize finds it for a request from any workspace of the org (it asks with the enterprise
id and `is_enterprise_install`). The workspace's records stay keyed by its own team id.

Why stores over paperbot's store (bot/store/installs.py), not Bolt's SQLAlchemy stores:
the store already speaks SQLite and PostgreSQL through one dialect layer
(bot/store/postgres.py), with its own transactions, locks and reconnects; SQLAlchemy would
be a new dependency, a second connection pool to the same database, and on SQLite a second
writer outside the store's lock (its writes racing the store's for the file's one write
lock). Four small tables and two Bolt interfaces cost less than that.
"""

from __future__ import annotations

import html
import inspect
import logging
import secrets
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from slack_bolt import BoltRequest, BoltResponse
from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_bolt.oauth import OAuthFlow
from slack_bolt.oauth.callback_options import CallbackOptions, FailureArgs, SuccessArgs
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk import WebClient
from slack_sdk.oauth.installation_store import Bot, Installation, InstallationStore
from slack_sdk.oauth.state_store import OAuthStateStore

from bot.config import Settings
from bot.i18n import lang_from_accept_language, lang_name, normalize_lang, other_lang, t
from bot.store.installs import Installations
from bot.store.workspaces import Workspaces

logger = logging.getLogger(__name__)

# What an installer grants: the manifest's bot scopes (tests/test_oauth.py checks they agree).
BOT_SCOPES = (
    "commands", "chat:write", "chat:write.public", "im:history", "im:write", "files:read", "files:write",
    "reactions:read", "users:read", "channels:read", "groups:read",
)  # fmt: skip
STATE_SECONDS = 600  # an install link's state is good for ten minutes, once


def _plain(value: Any) -> Any:
    """A stored value as JSON holds it: a moment as epoch seconds (expiries whole, as
    Installation() takes them back)."""
    if not isinstance(value, datetime):
        return value
    seconds = value.timestamp()
    return int(seconds) if seconds.is_integer() else seconds


class StoreInstallationStore(InstallationStore):
    """Bolt's InstallationStore over bot/store/installs.py: one bot installation per workspace.

    paperbot asks for no user scopes, so Bolt runs bot-only (`find_bot`, `save_bot` after a
    token rotation); `find_installation` is there for Bolt's other paths. With `workspaces`,
    the person who installs paperbot in a workspace becomes its first admin.
    """

    def __init__(self, installations: Installations, workspaces: Workspaces | None = None):
        self.installations = installations
        self.workspaces = workspaces

    @property
    def logger(self) -> logging.Logger:
        return logger

    def save(self, installation: Installation) -> None:
        data = {k: _plain(v) for k, v in installation.to_dict().items()}
        self.installations.save(
            installation.enterprise_id, installation.team_id, data, installed_at=self.installations.store.now()
        )
        logger.info("installed in workspace %s (%s)", installation.team_id, installation.team_name or "?")
        if self.workspaces is not None and installation.team_id:  # an org-wide install names no one workspace
            self.workspaces.welcome(
                installation.team_id, enterprise_id=installation.enterprise_id or "", installer=installation.user_id or ""
            )

    def save_bot(self, bot: Bot) -> None:
        """A rotated token: keep the rest of the installation as it was."""
        data = self.installations.find(bot.enterprise_id, bot.team_id) or {}
        data.update({k: _plain(v) for k, v in bot.to_dict().items()})
        self.installations.save(bot.enterprise_id, bot.team_id, data, installed_at=self.installations.store.now())

    def find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        data = self.installations.find(enterprise_id, None if is_enterprise_install else team_id)
        if data is None or (user_id is not None and data.get("user_id") != user_id):
            return None
        return Installation(**{k: v for k, v in data.items() if k in _INSTALLATION_FIELDS})

    def find_bot(
        self, *, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None = False
    ) -> Bot | None:
        installation = self.find_installation(
            enterprise_id=enterprise_id, team_id=team_id, is_enterprise_install=is_enterprise_install
        )
        if installation is None or not installation.bot_token:
            return None
        return installation.to_bot()

    def delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        self.installations.remove(enterprise_id, team_id, reason="tokens_revoked")

    def delete_installation(self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None) -> None:
        if user_id is None:  # the installer's user token alone is not paperbot's (it asks for none)
            self.installations.remove(enterprise_id, team_id, reason="app_uninstalled")

    def delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        self.installations.remove(enterprise_id, team_id, reason="app_uninstalled")


# What Installation() takes: a stored row may carry more (Bolt's to_dict adds custom values).
_INSTALLATION_FIELDS = frozenset(inspect.signature(Installation).parameters)


class StoreStateStore(OAuthStateStore):
    """Install states in the store: each good once, for STATE_SECONDS, on every instance."""

    def __init__(self, installations: Installations, *, lasts_seconds: int = STATE_SECONDS):
        self.installations = installations
        self.lasts_seconds = lasts_seconds

    @property
    def logger(self) -> logging.Logger:
        return logger

    def issue(self, *args, **kwargs) -> str:
        state = secrets.token_urlsafe(32)
        self.installations.issue_state(state, lasts_seconds=self.lasts_seconds)
        return state

    def consume(self, state: str) -> bool:
        if not state or not self.installations.consume_state(state):
            logger.info("refused an install with a state this server did not issue, or one already used")
            return False
        return True


_HTML_LANG = {"en": "en", "zh": "zh-Hans"}
_STYLE = (
    "body{font-family:-apple-system,'Segoe UI','PingFang SC','Microsoft YaHei',sans-serif;"
    "max-width:36em;margin:3em auto;padding:0 1em;line-height:1.5;color:#1d1c1d}"
    "a.add{display:inline-block;margin:1em 0;padding:.6em 1.2em;border-radius:6px;background:#4a154b;"
    "color:#fff;font-weight:bold;text-decoration:none}small a{color:#555}"
)


def request_lang(request: BoltRequest, *, from_query: bool = False) -> str:
    """The installer's language: `?lang=` on the install page, else the browser's Accept-Language."""
    if from_query:
        asked = (request.query.get("lang") or [""])[0]
        if asked:
            return normalize_lang(asked)
    header = ",".join(request.headers.get("accept-language") or [])
    return lang_from_accept_language(header)


def _document(lang: str, title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html><html lang="{_HTML_LANG[lang]}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>"
    )


def _page(lang: str, title_key: str, text: str, status: int) -> BoltResponse:
    """A small HTML page in `lang` (the browser's)."""
    return BoltResponse(
        status=status,
        body=_document(lang, t(title_key, lang), f"<p>{html.escape(text)}</p>"),
        headers={"Content-Type": "text/html; charset=utf-8"},
    )


def render_install_page(authorize_url: str, lang: str, install_path: str) -> str:
    """The page at /slack/install: what paperbot does, what it asks for, and the Add to Slack
    button (Slack's authorize URL with this browser's state); a link to the other language,
    named in that language (English, 中文) so its readers find it."""
    other = other_lang(lang)
    body = "".join(f"<p>{html.escape(t(key, lang))}</p>" for key in ("oauth.install_intro", "oauth.install_permissions"))
    body += f'<p><a class="add" href="{html.escape(authorize_url)}">{html.escape(t("oauth.install_button", lang))}</a></p>'
    body += f"<p><small>{html.escape(t('oauth.install_org', lang))}</small></p>"
    switch = html.escape(f"{install_path}?{urlencode({'lang': other})}")
    body += f'<p><small><a href="{switch}" hreflang="{_HTML_LANG[other]}">{html.escape(lang_name(other, other))}</a></small></p>'
    return _document(lang, t("oauth.install_title", lang), body)


class PaperbotOAuthFlow(OAuthFlow):
    """Bolt's OAuthFlow with paperbot's install page, in the browser's language.

    OAuthSettings has no install page renderer (only `install_page_rendering_enabled`, which
    turns the page off for a redirect); `build_install_page_html` is the method Bolt's flow
    calls for it, with the request, so a subclass is how the page is changed."""

    def build_install_page_html(self, url: str, request: BoltRequest) -> str:
        return render_install_page(url, request_lang(request, from_query=True), self.install_path)


_FAILURE_KEYS = {
    "invalid_browser": "oauth.failed_state",
    "invalid_state": "oauth.failed_state",
    "access_denied": "oauth.cancelled",
}


def _succeeded(args: SuccessArgs) -> BoltResponse:
    lang, installation = request_lang(args.request), args.installation
    if installation.is_enterprise_install:  # org-wide (Enterprise Grid): the org, not one workspace
        org = installation.enterprise_name or installation.enterprise_id or ""
        return _page(lang, "oauth.installed_title", t("oauth.installed_org", lang, team=org), 200)
    team = installation.team_name or installation.team_id or ""
    return _page(lang, "oauth.installed_title", t("oauth.installed", lang, team=team), 200)


def _failed(args: FailureArgs) -> BoltResponse:
    """Say what went wrong and what to do, in the browser's language; the reason goes to the log only."""
    logger.info("an install did not complete: %r", args.reason)  # %r: Slack's error parameter is the browser's to forge
    lang = request_lang(args.request)
    key = _FAILURE_KEYS.get(args.reason, "oauth.failed")
    text = t(key, lang, install_path=args.settings.install_path)
    return _page(lang, "oauth.failed_title", text, args.suggested_status_code)


def oauth_settings(
    settings: Settings, installations: Installations, client: WebClient, *, workspaces: Workspaces | None = None
) -> OAuthSettings:
    """Bolt's OAuth settings: paperbot's scopes, its stores, its pages, token rotation;
    `workspaces` makes each installer their workspace's first admin.

    `client` (the app's: SLACK_API_BASE_URL, retries) also refreshes rotating tokens: the
    authorize OAuthSettings builds gives its TokenRotator a default client, which would
    always call slack.com.
    """
    oauth = OAuthSettings(
        client_id=settings.slack_client_id,
        client_secret=settings.slack_client_secret,
        scopes=list(BOT_SCOPES),
        installation_store=StoreInstallationStore(installations, workspaces),
        installation_store_bot_only=True,
        state_store=StoreStateStore(installations),
        state_expiration_seconds=STATE_SECONDS,
        callback_options=CallbackOptions(success=_succeeded, failure=_failed),
        # Rotate a token this long before it expires (Slack's rotating tokens last 12 hours).
        token_rotation_expiration_minutes=settings.slack_token_rotation_minutes,
    )
    oauth.authorize = InstallationStoreAuthorize(
        logger=logging.getLogger("bot.slack.bolt"),
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        token_rotation_expiration_minutes=oauth.token_rotation_expiration_minutes,
        installation_store=oauth.installation_store,
        bot_only=True,
        client=client,
    )
    return oauth


def oauth_flow(
    settings: Settings, installations: Installations, client: WebClient, *, workspaces: Workspaces | None = None
) -> PaperbotOAuthFlow:
    """The OAuth flow App() runs: oauth_settings(...) with paperbot's install page."""
    return PaperbotOAuthFlow(
        client=client,
        logger=logging.getLogger("bot.slack.bolt"),
        settings=oauth_settings(settings, installations, client, workspaces=workspaces),
    )
