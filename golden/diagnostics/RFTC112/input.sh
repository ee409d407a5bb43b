#!/bin/bash
mkdir -p data
echo "preparing data"
