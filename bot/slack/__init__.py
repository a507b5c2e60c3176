"""The Slack layer: the only package that imports slack_bolt or slack_sdk.

blocks.py and the answers in commands.py are pure (the console uses them); app.py wires
listeners into a Bolt App; server.py runs it. Importing this package does nothing.
"""
