#!/bin/bash
# Slurm HealthCheckProgram without NHC: drain this node when gpudoctor fails it,
# with gpudoctor's one-line verdict as the drain reason.
#
# slurm.conf:
#     HealthCheckProgram=/etc/slurm/gpudoctor-healthcheck.sh
#     HealthCheckInterval=300
#     HealthCheckNodeState=ANY
# Slurm kills the program after 60 s; this one bounds the check at
# GPUDOCTOR_TIMEOUT (30 s). It never undrains: a person (or the site's own
# tooling) resumes the node after the fix. Set SLURM_NODE if the node's Slurm
# name is not its short hostname. Exit codes: docs/fleet.md.
set -u
GPUDOCTOR_BIN="${GPUDOCTOR_BIN:-/opt/gpudoctor/bin/gpudoctor}"
GPUDOCTOR_TIMEOUT="${GPUDOCTOR_TIMEOUT:-30}"
NODE="${SLURM_NODE:-$(hostname -s)}"

line=$(timeout -k 5 "$GPUDOCTOR_TIMEOUT" "$GPUDOCTOR_BIN" check --format oneline "$@" 2>/dev/null)
rc=$?
if [ "$rc" -eq 1 ]; then
    scontrol update NodeName="$NODE" State=DRAIN Reason="${line:-gpudoctor check failed}"
    exit 1
fi
if [ "$rc" -ne 0 ]; then
    logger -t gpudoctor "could not judge $NODE (exit $rc): ${line:-no output}"
fi
exit 0
