"""Search: the only room that imports Whoosh.

A paper's text becomes terms (analysis), the index stores them (schema, segments, codec,
index), a query is parsed and expanded across languages (query, lexicon), scored over
raw posting arrays (topk), and mistypings are corrected (spelling). Everything here is
derived from the store and can be rebuilt from it.
"""
