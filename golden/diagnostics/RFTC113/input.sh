#!/bin/bash
python3 -m mypkg.prepare --out data
python3 -m mypkg.train run.steps=10
