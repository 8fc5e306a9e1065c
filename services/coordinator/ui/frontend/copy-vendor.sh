#!/bin/sh
# Copies the UI's npm packages (installed by `npm ci` next to this file) into DEST: the one list of
# front-end files the coordinator serves, used by `make ui-assets` and by the Dockerfile.
set -eu
HERE=$(dirname "$0")
DEST=$1
mkdir -p "$DEST"
cp "$HERE/node_modules/htmx.org/dist/htmx.min.js" "$DEST/htmx.min.js"
cp "$HERE/node_modules/chart.js/dist/chart.umd.min.js" "$DEST/chart.umd.min.js"
cp "$HERE/node_modules/chartjs-chart-error-bars/build/index.umd.min.js" "$DEST/chartjs-chart-error-bars.min.js"
