#!/bin/bash
# every case of cases.tsv through ./gates, one at a time; logs/NAME.txt holds the driver output
cd /tmp/optprobe2
while IFS=$'\t' read -r name app kernel expect what; do
  ./gates apps/$app gen/$name.cu $kernel apps > logs/$name.txt 2>&1
  echo "$name rc=$? $(tail -1 logs/$name.txt)"
done < cases.tsv
