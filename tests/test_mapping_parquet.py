"""The parquet footer reader against files written by pyarrow (golden/convert/cases/data/)."""

import pytest

from rftc.mapping.parquet import ParquetError, num_rows
from support.paths import GOLDEN

DATA = GOLDEN / "convert" / "cases" / "data"


def test_row_counts_of_real_files():
    assert num_rows(DATA / "gsm8k" / "train.parquet") == 123  # three row groups
    assert num_rows(DATA / "rows2000.parquet") == 2000  # bool and map columns in the schema


def test_not_parquet(tmp_path):
    p = tmp_path / "x.parquet"
    p.write_bytes(b"PAR1" + b"\0" * 20)
    with pytest.raises(ParquetError):
        num_rows(p)
    p.write_bytes(b"hello")
    with pytest.raises(ParquetError):
        num_rows(p)
