#!/bin/bash
# every case of cases.tsv through ./gates (2 at a time); logs/NAME.txt holds the driver output
cd /tmp/optprobe3
one() { IFS=$'\t' read -r name app kernel expect what <<< "$1"; ./gates apps/$app gen/$name.cu $kernel apps > logs/$name.txt 2>&1; echo "$name rc=$? $(tail -1 logs/$name.txt)"; }
export -f one
tr '\n' '\0' < cases.tsv | xargs -0 -P 2 -I{} bash -c 'one "$@"' _ {}
