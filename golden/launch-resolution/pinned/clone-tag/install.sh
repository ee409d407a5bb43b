#!/bin/bash
# the environment this repository trains in
git clone -b v0.3.0.post1 https://github.com/volcengine/verl.git
cd verl && pip install -e .
