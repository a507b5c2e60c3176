"""The index's postings format: Whoosh's own codec, with each block stored as raw arrays.

Whoosh 3's codec pickles and zlib-compresses every block of 128 postings as a tuple of
Python ints, floats and byte strings; decoding it costs about 0.7 µs a posting, which at
a million papers is 200 ms for one common word before anything is scored. `ArrayCodec`
keeps Whoosh's file layout (terms file, per-document columns, block headers with
their max weight and length bounds, the same TermInfo) and changes only the block body:

    ids      n x uint32, little-endian, absolute document numbers (sorted)
    weights  n x float32, little-endian
    values   depends on the field's format: nothing (fixed size 0), n x size bytes
             (fixed size), or (n + 1) x uint32 offsets and the bytes they index

and writes 1,024 postings a block instead of 128. `numpy.frombuffer` reads ids and
weights straight from the memory-mapped file (bot/search/topk.py scores them as arrays), and
Whoosh's own matchers still work on it (`ArrayLeafMatcher`), so every query Whoosh
supports keeps working. Segments written by Whoosh's codec stay readable: the reader
looks at each posting list's header.
"""

from __future__ import annotations

import struct
import sys
from array import array
from bisect import bisect_left
from itertools import accumulate
from typing import Any

from whoosh.codec.whoosh3 import W3Codec, W3LeafMatcher, W3PostingsWriter
from whoosh.matching import ReadTooFar
from whoosh.system import emptybytes
from whoosh.util.numeric import length_to_byte

ARRAY_HEADER_MAGIC = b"PBA1"  # this format's posting lists start with it (Whoosh's: b"W3Bl")
BLOCK_LIMIT = 1024  # postings a block: fewer block headers to walk per word
_LITTLE = sys.byteorder == "little"


def _array(typecode: str, data: bytes) -> array:
    a = array(typecode)
    a.frombytes(data)
    if not _LITTLE:
        a.byteswap()
    return a


def _le(a: array) -> bytes:
    if _LITTLE:
        return a.tobytes()
    b = array(a.typecode, a)
    b.byteswap()
    return b.tobytes()


class ArrayCodec(W3Codec):
    """Whoosh 3's codec with raw-array posting blocks (see the module docstring)."""

    def __init__(self, blocklimit: int = BLOCK_LIMIT, compression: int = 0, inlinelimit: int = 1):
        super().__init__(blocklimit=blocklimit, compression=0, inlinelimit=inlinelimit)

    def field_writer(self, storage, segment):
        writer = super().field_writer(storage, segment)
        # Whoosh asks the terms and postings files where they are two or three times a
        # term; a buffered file answers with a system call (a sixth of a bulk commit).
        for structfile in (writer._postfile, writer._tindex.dbfile):
            structfile.file = _Appending(structfile.file)
        return writer

    def postings_writer(self, dbfile, byteids=False):
        if byteids:  # term vectors (postings keyed by term): Whoosh's own format
            return super().postings_writer(dbfile, byteids=True)
        return ArrayPostingsWriter(dbfile, blocklimit=self._blocklimit, inlinelimit=self._inlinelimit)

    def postings_reader(self, dbfile, terminfo, format_, term=None, scorer=None):
        if terminfo.is_inlined():
            return super().postings_reader(dbfile, terminfo, format_, term=term, scorer=scorer)
        offset, length = terminfo.extent()
        if dbfile.get(offset, 4) != ARRAY_HEADER_MAGIC:
            return W3LeafMatcher(dbfile, offset, length, format_, term=term, scorer=scorer)
        return ArrayLeafMatcher(dbfile, offset, length, format_, term=term, scorer=scorer)


class _Appending:
    """A file written start to end that keeps its own offset, so tell() makes no system call."""

    def __init__(self, file):
        self._file = file
        self._offset = file.tell()

    def write(self, data) -> int:
        written = self._file.write(data)
        self._offset += len(data)
        return written

    def tell(self) -> int:
        return self._offset

    def seek(self, *args) -> int:
        self._offset = self._file.seek(*args)
        return self._offset

    def __getattr__(self, name):
        return getattr(self._file, name)


class ArrayPostingsWriter(W3PostingsWriter):
    """Writes blocks as raw arrays; the block header is Whoosh 3's (count, last id, bounds)."""

    _ids: Any  # Whoosh's: the current block's ids

    def __init__(self, postfile, blocklimit: int = BLOCK_LIMIT, inlinelimit: int = 1):
        super().__init__(postfile, blocklimit, byteids=False, compression=0, inlinelimit=inlinelimit)

    def add_postings(self, ids, weights, values, lengths: list | None) -> None:
        """`add_posting` for a whole term, a block at a time: the same blocks and statistics.

        `ids` (sorted), `weights` and `values` are the term's columns; `lengths` holds
        every document's length of the field (None when the codec keeps none).
        """
        limit = self._blocklimit
        for start in range(0, len(ids), limit):
            if self._ids:
                self._write_block()
            end = start + limit
            self._ids = array("I", ids[start:end])
            block_weights = weights[start:end]
            self._weights = array("f", block_weights)
            top = max(block_weights)
            self._maxweight = top if top > 0 else 0
            self._values = [v for v in values[start:end] if v]
            if lengths is not None:
                present = list(filter(None, map(lengths.__getitem__, self._ids)))
                if present:
                    self._minlength, self._maxlength = min(present), max(present)

    def _write_block(self, last=False):
        from pickle import dumps

        if not self._blockcount:
            self._postfile.write(ARRAY_HEADER_MAGIC)
        self._terminfo.add_block(self)
        ids, weights = self._ids, self._weights
        parts = [_le(ids), _le(weights)]
        fixedsize = self._format.fixed_value_size()
        values = self._values
        if fixedsize is None or fixedsize < 0:
            offsets = array("I", accumulate(map(len, values), initial=0))
            parts.append(_le(offsets))
            parts.append(emptybytes.join(values))
        elif fixedsize > 0:
            parts.append(emptybytes.join(values))
        databytes = emptybytes.join(parts)
        infobytes = dumps(
            (
                len(ids),
                ids[-1],
                self._maxweight,
                0,
                length_to_byte(self._minlength),
                length_to_byte(self._maxlength),
            ),
            2,
        )
        blocklength = len(infobytes) + len(databytes)
        postfile = self._postfile
        postfile.write_int(-blocklength if last else blocklength)
        postfile.write(infobytes)
        postfile.write(databytes)
        self._blockcount += 1
        self._new_block()


class ArrayLeafMatcher(W3LeafMatcher):
    """Whoosh's block matcher over raw-array blocks, skipping inside a block by bisection."""

    _ids: Any  # Whoosh's: the current block's ids (an array), None until read
    _i: int  # Whoosh's: the position in the block

    def _read_header(self):
        postfile = self._postfile
        postfile.seek(self._startoffset)
        magic = postfile.read(4)
        if magic != ARRAY_HEADER_MAGIC:
            raise ValueError(f"posting list tag error {magic!r}")
        self._baseoffset = postfile.tell()

    def _read_ids(self):
        self._ids = _array("I", self._postfile.get(self._dataoffset, 4 * self._blocklength))

    def _read_weights(self):
        n = self._blocklength
        self._weights = _array("f", self._postfile.get(self._dataoffset + 4 * n, 4 * n))

    def _read_values(self):
        n = self._blocklength
        start = self._dataoffset + 8 * n
        fixedsize = self._fixedsize
        if fixedsize is None or fixedsize < 0:
            offsets = _array("I", self._postfile.get(start, 4 * (n + 1)))
            blob = self._postfile.get(start + 4 * (n + 1), offsets[-1])
            self._values = tuple(blob[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1))
        elif fixedsize == 0:
            self._values = (None,) * n
        else:
            blob = self._postfile.get(start, n * fixedsize)
            self._values = tuple(blob[i : i + fixedsize] for i in range(0, len(blob), fixedsize))

    def skip_to(self, targetid):
        if not self.is_active():
            raise ReadTooFar
        if targetid <= self.id():
            return
        if targetid > self._maxid:
            self._skip_to_block(lambda: targetid > self._maxid)
            if not self.is_active():
                return
        if self._ids is None:
            self._read_ids()
        self._i = bisect_left(self._ids, targetid, self._i)
        if self._i >= self._blocklength:  # cannot happen for sorted ids; stay safe
            self._next_block()


def numeric_column_bytes(leaf, fieldname: str) -> tuple[Any, bytes] | None:
    """One segment's sortable numeric column of `fieldname` as Whoosh wrote it: (the column
    type, its big-endian values, one per document up to the last that has one), read in one
    piece (Whoosh's reader decodes a value a call); None if the segment has no such column."""
    if not leaf.doc_count_all() or not leaf.has_column(fieldname):
        return None
    column = leaf.schema[fieldname].column_type
    reader = leaf._perdoc.column_reader(fieldname, column)
    width = struct.calcsize(column._typecode)
    return column, (reader._dbfile.get(reader._basepos, reader._count * width) if reader._count else b"")
