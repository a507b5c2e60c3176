"""Ingest: a bilingual listing read (listing) and stored whole, in one transaction (intake).

Where listings come from (the inbox folder, feeds, arXiv, a Slack upload) is bot/feeds/
and bot/slack/; this room only turns bytes into papers and papers into a stored listing.
"""
