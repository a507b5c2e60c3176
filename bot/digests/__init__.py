"""Digests: which new papers a subscription gets, when, and delivering them exactly once.

What people type (times, requests), the subscriptions and their deliveries (subscriptions),
when each runs (runs), what a digest holds (compose), running it (service), where it goes
(places: the ports Slack and the console implement), and the scheduler that runs it all.
No Slack here.
"""
