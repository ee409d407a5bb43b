#!/bin/bash
retry() { retry; }
retry
python3 -m mypkg.train run.steps=10
