"""App Home's view for one reader: what it holds is read here, drawn by render/home.py.

While the index is rebuilt the store is readable: the count and the newest papers come
from it, and a notice says how far the rebuild has got. Admins also see the feeds.
"""

from __future__ import annotations

from bot.i18n import normalize_lang, t
from bot.models import SearchResult
from bot.services import Services
from bot.slack.answers.subscribe import render_home_subscriptions
from bot.slack.render.home import NEWEST_SHOWN, render_home
from bot.slack.render.library import render_home_saved
from bot.slack.render.settings import render_home_settings
from bot.slack.render.sources import render_meaning_status, render_sources
from bot.slack.reply import not_ready_message, person_lang


def build_home(
    services: Services, user_id: str, *, result: SearchResult | None = None, lang: str | None = None, team_id: str = ""
) -> dict:
    """The Home view of `user_id` of workspace `team_id`; `result` is a search to show under the examples.

    `team_id`, from Slack's signed payload, keys everything of the person's Home shows:
    their language, saves and interests (another workspace's same user id sees none of them).

    Its language is the one replies use (`person_lang`): the person's `/papers lang`, else
    their Slack locale, so a zh-CN reader who never set one gets a Chinese Home.
    """
    corpus = services.corpus
    stored = corpus.get_user_lang(user_id, team_id)
    lang = normalize_lang(lang) if lang else person_lang(services, user_id, stored, team_id=team_id)
    ready = corpus.is_ready()
    is_admin = services.is_admin(team_id, user_id)  # of this workspace: its feeds, its settings
    paper_count = int(corpus.stats().get("papers", 0)) if ready else corpus.store.state()[0]
    paper_count -= len(corpus.hidden_from(team_id))  # another workspace's private uploads are not counted here either
    not_ready = None
    if not ready:
        key, fields = not_ready_message(corpus.rebuilding())
        not_ready = t(key, lang, **fields)
    return render_home(
        user_id,
        lang,
        newest=corpus.newest(NEWEST_SHOWN, team=team_id),
        paper_count=paper_count,
        lang_is_set=bool(stored),
        result=result,
        subscriptions=render_home_subscriptions(services, user_id, lang, team_id),
        interests=services.library.feedback.interests(team_id, user_id),
        saved_ids=services.library.saved_ids(user_id, team_id=team_id) if ready else frozenset(),
        saved_section=render_home_saved(services.library, user_id, lang, team_id=team_id) if ready else None,
        sources=[*render_sources(services.sources.list_sources(team_id), lang), *render_meaning_status(_vectors(services), lang)]
        if is_admin
        else None,
        workspace=render_home_settings(
            services.workspaces.get(team_id),
            services.admins_of(team_id),
            lang,
            server_zone=services.settings.timezone,
            can_change=is_admin,
        ),
        not_ready=not_ready,
    )


def _vectors(services: Services):
    meaning = services.corpus.meaning
    return meaning.builder.progress() if meaning is not None else None
