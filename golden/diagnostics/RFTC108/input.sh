#!/bin/bash
steps=$(python3 -c "print(10 * 2)")
python3 -m mypkg.train run.steps=$steps
