#!/bin/sh
# Write gpudoctor's gauges for node_exporter's textfile collector, atomically:
# a temp file in the same directory, then a rename (node_exporter never reads
# half a file). The check's exit code 1 means "findings", not "no metrics",
# so the file is written either way; only a missing or empty output is an error.
#
#   GPUDOCTOR_BIN         gpudoctor to run (default /opt/gpudoctor/bin/gpudoctor)
#   TEXTFILE_DIR          node_exporter --collector.textfile.directory
#   GPUDOCTOR_TIMEOUT     seconds (default 60)
# Extra arguments go to `gpudoctor check` (for example --policy FILE).
set -u
GPUDOCTOR_BIN="${GPUDOCTOR_BIN:-/opt/gpudoctor/bin/gpudoctor}"
TEXTFILE_DIR="${TEXTFILE_DIR:-/var/lib/node_exporter/textfile_collector}"
GPUDOCTOR_TIMEOUT="${GPUDOCTOR_TIMEOUT:-60}"
out="$TEXTFILE_DIR/gpudoctor.prom"
tmp="$TEXTFILE_DIR/.gpudoctor.prom.$$"   # a dotfile: not *.prom, so never read half-written

timeout -k 5 "$GPUDOCTOR_TIMEOUT" "$GPUDOCTOR_BIN" check --format prometheus "$@" >"$tmp" 2>/dev/null
rc=$?
if [ "$rc" -gt 1 ] || [ ! -s "$tmp" ]; then
    rm -f "$tmp"
    echo "gpudoctor-textfile: gpudoctor check exited $rc without metrics; $out left as it was" >&2
    exit 1
fi
chmod 0644 "$tmp"
mv -f "$tmp" "$out"
