"""What to answer a command or a click: pure functions over the services that return a Reply."""
