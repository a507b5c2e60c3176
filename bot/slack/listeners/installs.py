"""A workspace removed paperbot, or revoked its token: forget its installation, pause it.

Only with installs from a link (bot/slack/oauth.py). Bolt delivers `app_uninstalled` and
`tokens_revoked` without looking up a token (there is none left to look up). The store
drops the workspace's tokens and marks it paused; a reinstall (a new installation saved)
resumes it.

Org-wide installs (Enterprise Grid): Slack's events and clicks from a workspace of the org
carry the org's authorization (`is_enterprise_install`, the enterprise id and no team in
`authorizations`; the workspace's own id stays in the payload, and keys its records). An
uninstall from the org removes the org's installation, (enterprise id, ''), which pauses
every workspace it served. A middleware notes each workspace heard from inside an org
install (`Installations.join_org`), so background work finds the org's token for it, and
makes the org's installer that workspace's first admin.
"""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_sdk.oauth.installation_store import InstallationStore

from bot.slack.listeners.actions import team_id_of
from bot.store.installs import Installations
from bot.store.workspaces import Workspaces

_logger = logging.getLogger(__name__)


def register(
    app: App,
    installation_store: InstallationStore,
    installations: Installations | None = None,
    workspaces: Workspaces | None = None,
) -> None:
    def installed_key(context) -> tuple[str | None, str | None]:
        # An org-wide install is kept under its enterprise alone (Bolt's context has no team for it).
        return context.enterprise_id, None if context.is_enterprise_install else context.team_id

    @app.event("app_uninstalled")
    def on_uninstalled(context, logger):
        enterprise_id, team_id = installed_key(context)
        installation_store.delete_all(enterprise_id=enterprise_id, team_id=team_id)
        logger.info("paperbot was uninstalled from %s: installation removed, paused", team_id or f"org {enterprise_id}")

    @app.event("tokens_revoked")
    def on_tokens_revoked(event, context, logger):
        if not (event.get("tokens") or {}).get("bot"):
            return  # only user tokens, which paperbot never asks for
        enterprise_id, team_id = installed_key(context)
        installation_store.delete_bot(enterprise_id=enterprise_id, team_id=team_id)
        logger.info("%s revoked paperbot's token: installation removed, paused", team_id or f"org {enterprise_id}")

    if installations is None:
        return
    noted: set[tuple[str, str]] = set()  # (enterprise, team) pairs this instance has stored

    @app.middleware
    def note_org_workspace(context, body, next):  # noqa: A002 (Bolt passes `next` by this name)
        enterprise_id = context.enterprise_id or ""
        if context.is_enterprise_install and enterprise_id:
            team_id = team_id_of(body)
            if team_id and (enterprise_id, team_id) not in noted:
                if installations.join_org(enterprise_id, team_id):
                    _logger.info("workspace %s of org %s is served by the org's install", team_id, enterprise_id)
                    if workspaces is not None:
                        installer = (installations.find(enterprise_id, None) or {}).get("user_id") or ""
                        workspaces.welcome(team_id, enterprise_id=enterprise_id, installer=installer)
                noted.add((enterprise_id, team_id))
        return next()
