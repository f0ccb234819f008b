#!/usr/bin/env bash
# The main job: installs what is missing, builds rdmaconf, and runs it.
# Until the conformance engine lands, the main job is a loopback session
# between two reference endpoints over real TCP that exercises every RDMAP
# operation and prints what crossed the wire.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/install-deps.sh
cmake -S . -B build/gcc -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build/gcc -j "$(nproc)" --target rdmaconf
./build/gcc/conformance/cli/rdmaconf loopback "$@"
