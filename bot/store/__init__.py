"""The store: the database that is the source of truth (database), its WAL kept small (wal).

Every other room's tables live beside the papers in the same file, created by the room
that owns them (subscriptions in bot/digests/, saves and votes in bot/library/, feeds
in bot/feeds/) through `apply_schema`.
"""
