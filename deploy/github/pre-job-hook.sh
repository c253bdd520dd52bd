#!/usr/bin/env bash
# Self-hosted runner pre-job hook: refuse jobs on a runner whose GPU stack is broken.
#
# In the runner's .env file:  ACTIONS_RUNNER_HOOK_JOB_STARTED=/opt/gpudoctor/pre-job-hook.sh
# Exit 0 lets the job run; any other exit fails the job before its first step
# (https://docs.github.com/actions/hosting-your-own-runners/running-scripts-before-or-after-a-job).
# Workflow commands work in the hook, so the findings show as annotations.
# Judged: the runner's default Python (GPUDOCTOR_PYTHON), against an optional
# site policy; gpudoctor itself lives in its own venv (GPUDOCTOR_BIN).
set -uo pipefail
GPUDOCTOR_BIN="${GPUDOCTOR_BIN:-/opt/gpudoctor/bin/gpudoctor}"
GPUDOCTOR_PYTHON="${GPUDOCTOR_PYTHON:-$(command -v python3)}"
GPUDOCTOR_POLICY="${GPUDOCTOR_POLICY:-/etc/gpudoctor/gpudoctor.toml}"
argv=(check --format github --python "$GPUDOCTOR_PYTHON")
[ -f "$GPUDOCTOR_POLICY" ] && argv+=(--policy "$GPUDOCTOR_POLICY")
timeout -k 5 60 "$GPUDOCTOR_BIN" "${argv[@]}"
rc=$?
case "$rc" in
  0) exit 0 ;;
  124|137) echo "::error title=gpudoctor::the pre-job check timed out after 60 s"; exit 1 ;;
  *) exit "$rc" ;;
esac
