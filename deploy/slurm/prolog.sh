#!/bin/bash
# Slurm Prolog: refuse to start a job on a node gpudoctor fails.
#
# slurm.conf:
#     Prolog=/etc/slurm/prolog.d/*     (this file as /etc/slurm/prolog.d/50-gpudoctor.sh)
#     PrologFlags=Alloc                (run it at allocation, before the job's first step)
#     PrologEpilogTimeout=60           (bound every prolog; this one bounds itself too)
# A non-zero Prolog exit drains the node and requeues the job
# (https://slurm.schedmd.com/prolog_epilog.html). The one-line verdict goes to
# syslog (tag gpudoctor) and becomes the drain reason via scontrol, so
# `sinfo -R` shows why. gpudoctor's own trouble (exit 2 or 3, a timeout) is
# logged and lets the job run: a broken policy file must not drain a cluster.
set -u
GPUDOCTOR_BIN="${GPUDOCTOR_BIN:-/opt/gpudoctor/bin/gpudoctor}"
GPUDOCTOR_TIMEOUT="${GPUDOCTOR_TIMEOUT:-20}"
NODE="${SLURMD_NODENAME:-$(hostname -s)}"

line=$(timeout -k 5 "$GPUDOCTOR_TIMEOUT" "$GPUDOCTOR_BIN" check --format oneline "$@" 2>/dev/null)
rc=$?
case "$rc" in
    0) exit 0 ;;
    1)
        logger -t gpudoctor "prolog for job ${SLURM_JOB_ID:-?} on $NODE: $line"
        scontrol update NodeName="$NODE" State=DRAIN Reason="${line:-gpudoctor check failed}" 2>/dev/null
        exit 1 ;;
    *)
        logger -t gpudoctor "prolog on $NODE could not judge (exit $rc): ${line:-no output}"
        exit 0 ;;
esac
