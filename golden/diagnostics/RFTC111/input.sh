#!/bin/bash
source ./cluster_env.sh
python3 -m mypkg.train run.nodes=${NODES:-1}
