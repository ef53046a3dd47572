#!/usr/bin/env bash
# The rescue system of the real-guest tests: make-rescue-image.sh applied to the test image
# (build-rescue-test-image.sh <test image qcow2>), so it finds its root at /dev/vda1 while the VPS's
# disk, a copy of the same image with the same identifiers, is /dev/vdb. Prints the path of the
# qcow2, cached beside the test image.
set -euo pipefail
source_image=${1:?usage: build-rescue-test-image.sh <test image qcow2>}
out="${source_image%.qcow2}-rescue.qcow2"
if [ -s "$out" ] && [ "$out" -nt "$source_image" ] && [ "$out" -nt "$0" ] && [ "$out" -nt "$(dirname "$0")/make-rescue-image.sh" ]; then echo "$out"; exit 0; fi

exec 9>"$out.lock"
flock 9
if [ -s "$out" ] && [ "$out" -nt "$source_image" ] && [ "$out" -nt "$0" ] && [ "$out" -nt "$(dirname "$0")/make-rescue-image.sh" ]; then echo "$out"; exit 0; fi
bash "$(dirname "$0")/make-rescue-image.sh" "$source_image" "$out"
