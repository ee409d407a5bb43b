"""Row counts of parquet files from their footer, without pyarrow.

A parquet file ends with ``<FileMetaData, thrift compact protocol><u32 length>PAR1``; field 3 of
FileMetaData is ``num_rows`` (i64). Only that field is decoded; everything before it is skipped generically.
"""

from __future__ import annotations

import struct
from pathlib import Path

MAGIC = b"PAR1"


class ParquetError(ValueError):
    pass


def num_rows(path: str | Path) -> int:
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        if size < 12:
            raise ParquetError(f"{path}: too short to be parquet")
        f.seek(size - 8)
        tail = f.read(8)
        if tail[4:] != MAGIC:
            raise ParquetError(f"{path}: not a parquet file (no PAR1 footer)")
        (length,) = struct.unpack("<I", tail[:4])
        if length + 12 > size:
            raise ParquetError(f"{path}: corrupt footer length {length}")
        f.seek(size - 8 - length)
        meta = f.read(length)
    return _Reader(meta).file_num_rows()


MAX_NESTING = 64  # structs within structs: Apache Thrift's own readers stop at this depth


class _Reader:
    def __init__(self, buf: bytes):
        self.buf, self.pos, self.depth = buf, 0, 0

    def byte(self) -> int:
        if self.pos >= len(self.buf):
            raise ParquetError("truncated footer")
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def skip(self, ttype: int) -> None:
        if ttype in (1, 2):  # bool stored in the field header
            return
        if ttype == 3:
            self.pos += 1
        elif ttype in (4, 5, 6):
            self.varint()
        elif ttype == 7:
            self.pos += 8
        elif ttype == 8:
            length = self.varint()  # read before moving: `self.pos += self.varint()` would lose the varint
            self.pos += length
        elif ttype in (9, 10):
            head = self.byte()
            count = head >> 4
            if count == 15:
                count = self.varint()
            self.fits(count)
            for _ in range(count):
                self.skip_element(head & 0x0F)
        elif ttype == 11:
            count = self.varint()
            self.fits(2 * count)
            if count:
                kv = self.byte()
                for _ in range(count):
                    self.skip_element(kv >> 4)
                    self.skip_element(kv & 0x0F)
        elif ttype == 12:
            self.skip_struct()
        else:
            raise ParquetError(f"unknown thrift type {ttype}")

    def skip_element(self, ttype: int) -> None:
        if ttype in (1, 2):  # bools inside containers take a byte
            self.pos += 1
        else:
            self.skip(ttype)

    def fields(self):
        last = 0
        while True:
            head = self.byte()
            ttype = head & 0x0F
            if ttype == 0:
                return
            delta = head >> 4
            fid = last + delta if delta else self.zigzag()
            last = fid
            yield fid, ttype

    def fits(self, elements: int) -> None:
        """Every element takes a byte at least: a count the footer's bytes cannot hold is corrupt, not a loop."""
        if elements > len(self.buf) - self.pos:
            raise ParquetError(f"corrupt footer: {elements} elements in {len(self.buf) - self.pos} bytes")

    def skip_struct(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ParquetError(f"corrupt footer: structs nested deeper than {MAX_NESTING}")
        for _, ttype in self.fields():
            self.skip(ttype)
        self.depth -= 1

    def file_num_rows(self) -> int:
        for fid, ttype in self.fields():
            if fid == 3 and ttype == 6:
                return self.zigzag()
            self.skip(ttype)
        raise ParquetError("footer has no num_rows")
