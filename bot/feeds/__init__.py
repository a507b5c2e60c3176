"""Feeds: where new papers come from by themselves.

Listing URLs and arXiv queries polled on a schedule (sources), arXiv lookups that add
links and abstracts to stored papers (arxiv), the inbox folder (inbox), and the one
careful HTTP client they share (fetch).
"""
