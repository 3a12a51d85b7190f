#!/usr/bin/env bash
# Set everything up, build, and serve the viewer on http://127.0.0.1:${PORT:-8000}/ (the built-in sample opens).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "serving http://127.0.0.1:${PORT:-8000}/ (Ctrl-C to stop)"
exec node scripts/serve.mjs "${PORT:-8000}"
