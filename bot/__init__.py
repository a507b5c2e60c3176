"""paperbot: find research papers in English and Chinese, in Slack.

Data flows one way: listing -> store -> index -> query -> render -> Slack.
Importing the package does nothing heavy: no Whoosh, no Slack, no segmenter.
"""

__version__ = "0.1.0"
