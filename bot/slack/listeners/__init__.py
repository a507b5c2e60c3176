"""Bolt listeners, one module per Slack surface, each with `register(app, services)`."""
