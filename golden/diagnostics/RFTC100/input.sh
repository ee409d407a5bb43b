#!/bin/bash
if [ "$MODE" = fast ]
  python3 -m mypkg.train lr=0.1
fi
