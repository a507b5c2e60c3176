"""Block Kit as plain dicts: pure renderers of papers, results, digests and views."""
