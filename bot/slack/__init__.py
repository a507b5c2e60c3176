"""The Slack frontend: the only package that imports slack_bolt or slack_sdk.

    render/      Block Kit as plain dicts, pure: cards, results, digests, App Home, help
    answers/     what to say to a command or a click, pure: returns a Reply (reply.py)
    listeners/   Bolt listeners: ack, make one call into answers/, deliver the Reply
    words.py     the /papers vocabulary;  values.py  action ids and button values
    delivery.py  a Reply delivered (response_url, chat.postMessage, a DM, App Home, a file)
    posting.py   digests posted, people and channels looked up (bot/digests/places.py's ports)
    alerts.py    admins' DMs;  client.py  the WebClient, built one way
    app.py       the services Slack needs and the Bolt app, wired;  server.py, http.py  run it

render/ and answers/ never touch Slack: the offline console (bot/console.py) and the CLI
use them too. Importing this package does nothing.
"""
