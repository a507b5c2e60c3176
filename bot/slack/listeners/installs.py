"""A workspace removed paperbot, or revoked its token: forget its installation, pause it.

Only with installs from a link (bot/slack/oauth.py). Bolt delivers `app_uninstalled` and
`tokens_revoked` without looking up a token (there is none left to look up). The store
drops the workspace's tokens and marks it paused; a reinstall (a new installation saved)
resumes it.
"""

from __future__ import annotations

from slack_bolt import App
from slack_sdk.oauth.installation_store import InstallationStore


def register(app: App, installation_store: InstallationStore) -> None:
    @app.event("app_uninstalled")
    def on_uninstalled(context, logger):
        installation_store.delete_all(enterprise_id=context.enterprise_id, team_id=context.team_id)
        logger.info("paperbot was uninstalled from workspace %s: installation removed, workspace paused", context.team_id)

    @app.event("tokens_revoked")
    def on_tokens_revoked(event, context, logger):
        if not (event.get("tokens") or {}).get("bot"):
            return  # only user tokens, which paperbot never asks for
        installation_store.delete_bot(enterprise_id=context.enterprise_id, team_id=context.team_id)
        logger.info("workspace %s revoked paperbot's token: installation removed, workspace paused", context.team_id)
