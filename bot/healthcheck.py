"""`python -m bot.healthcheck`: exit 0 when the local server's /healthz says ready, else 1.

For a container's HEALTHCHECK (the slim image has no curl). It reads PORT the way `serve`
does and asks 127.0.0.1. In Socket Mode (SLACK_APP_TOKEN set) paperbot serves no HTTP, so
there is nothing to ask: it says so and exits 0, and the container's health is then only
that the process runs.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

from bot.config import Settings
from bot.errors import ConfigError


def check(settings: Settings, timeout: float = 4.0) -> tuple[bool, str]:
    """Ask /healthz; return (healthy, one line saying why)."""
    if settings.socket_mode:
        return True, "Socket Mode: no HTTP server to check"
    url = f"http://127.0.0.1:{settings.port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status == 200, f"{url}: {response.status}"
    except urllib.error.HTTPError as error:
        return False, f"{url}: {error.code}"
    except OSError as error:
        return False, f"{url}: {error}"


def main() -> int:
    try:
        healthy, why = check(Settings.from_env())
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 1
    print(why)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
