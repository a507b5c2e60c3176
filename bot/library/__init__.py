"""The reading list: saves, channel votes, ranking new papers for a person or a channel,
and exports (BibTeX, RIS, CSL-JSON). Domain logic over the store; Slack renders it.
"""
