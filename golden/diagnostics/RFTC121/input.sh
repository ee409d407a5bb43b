#!/bin/bash
for lr in 1e-6 2e-6; do
  python3 -m mypkg.train optim.lr=$lr
done
echo "all runs done"; done
