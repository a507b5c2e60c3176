"""Import a name from the code under test, whichever layout it has.

`--code DIR` may point at paperbot before its rooms (bot/index.py, bot/listing.py, ...,
up to 7cca50e) or after (bot/search/index.py, bot/ingest/listing.py, ...): `find` takes
the new path first, then the old, so one harness measures both.
"""

from __future__ import annotations

import importlib


def find(*targets: str):
    """The first of `module:name` targets that imports, e.g. find("bot.search.index:PaperIndex", "bot.index:PaperIndex")."""
    errors = []
    for target in targets:
        module, name = target.split(":")
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as exc:
            errors.append(f"{target}: {exc}")
    raise ImportError("; ".join(errors))
