"""Search by meaning: a bundled multilingual sentence encoder beside BM25F.

    model.py    the encoder (USE multilingual v3, shipped inside its package: no download)
    text.py     what of a paper is embedded
    vectors.py  the papers' vectors: derived data in the data folder, rebuildable, never the truth
    builder.py  computes missing vectors in the background, newest first; resumes after a kill
    hybrid.py   how dense neighbours join the lexical results (literal matches stay first)
    dupes.py    the same paper under variant titles: a vector match confirmed by its authors

Nothing here is in the ingest path or a request's: vectors are computed on the scheduler's
thread (or by `python -m bot vectors`); a search only embeds its query (~5 ms).
"""
