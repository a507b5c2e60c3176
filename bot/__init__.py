"""paperbot: find research papers in English and Chinese, in Slack.

Data flows one way: listing -> store -> index -> query -> render -> Slack.
Importing the package does nothing heavy: no Whoosh, no Slack, no segmenter.
"""

import warnings

__version__ = "0.1.0"

# Whoosh 2.7.4 (its last release) has regexes in plain strings ("\w", "\d"): compiling its
# bytecode fresh warns "invalid escape sequence" (DeprecationWarning on Python 3.11,
# SyntaxWarning from 3.12), which `python -W error` turns into an error at import. Only
# that message, only from files inside a `whoosh` package, is ignored: paperbot's own
# code still fails under -W error. Here because every module of ours that imports
# Whoosh (index, query, analysis) is imported through this package first. The maintained
# fork whoosh-reloaded 2.7.5 has no such strings but was measured worse: searcher
# refresh crashes on an empty index and counts deleted documents again after an upsert
# (bench/RESULTS.md, "Whoosh or whoosh-reloaded").
# Its codec (whoosh/codec/whoosh3.py, which bot/search/codec.py extends) also compares with
# `is 0`, which warns '"is" with a literal' the same way.
for _category in (DeprecationWarning, SyntaxWarning):
    for _message in ("invalid escape sequence", '"is" with a literal'):
        warnings.filterwarnings("ignore", message=_message, category=_category, module=r".*[\\/]whoosh[\\/]")
del _category, _message
