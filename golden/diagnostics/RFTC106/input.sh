#!/bin/bash
python3 -m mypkg.train data.path=$DATA_ROOT/train.parquet
