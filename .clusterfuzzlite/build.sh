#!/bin/bash -eu
# ClusterFuzzLite build: the same as OSS-Fuzz's (ci/oss-fuzz/build.sh).
exec bash "$SRC/rdmaconf/ci/oss-fuzz/build.sh"
