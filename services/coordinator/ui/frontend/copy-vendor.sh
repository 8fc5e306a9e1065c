#!/bin/sh
# Copies the UI's npm packages into DEST: the one list of front-end files the coordinator serves,
# used by `make ui-assets` and by the Dockerfile. NODE_MODULES: where `npm ci` installed them
# (default: next to this file).
set -eu
DEST=$1
NODE_MODULES=${2:-$(dirname "$0")/node_modules}
mkdir -p "$DEST"
cp "$NODE_MODULES/htmx.org/dist/htmx.min.js" "$DEST/htmx.min.js"
cp "$NODE_MODULES/chart.js/dist/chart.umd.min.js" "$DEST/chart.umd.min.js"
cp "$NODE_MODULES/chartjs-chart-error-bars/build/index.umd.min.js" "$DEST/chartjs-chart-error-bars.min.js"
