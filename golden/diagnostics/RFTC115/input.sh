#!/bin/bash
$LAUNCHER -m mypkg.train run.steps=10
