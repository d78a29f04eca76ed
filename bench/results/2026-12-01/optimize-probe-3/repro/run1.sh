#!/bin/bash
# run1.sh NAME: builds NAME.cu from NAME.in (tiny.cu with the pieces) and runs the gates
cd /tmp/optprobe3/repro/_work; python3 mk.py $1 && /tmp/optprobe3/gates tiny.cu $1.cu scale . > $1.gates.txt 2>&1
echo "$1: $(grep -c 'STATIC.*PASS' $1.gates.txt)/2 static passes; $(grep '^BINARY' $1.gates.txt | cut -c1-200); $(tail -1 $1.gates.txt)"
