#!/usr/bin/env bash
# The composite action's step (action.yml): install gpudoctor from the action's
# own checkout into its own venv (so it never touches the judged environment),
# then run `gpudoctor check --format github`. gpudoctor appends the job summary
# to $GITHUB_STEP_SUMMARY and verdict/errors/warnings/exit-code/report to
# $GITHUB_OUTPUT; this step's exit code is gpudoctor's (0 pass, 1 findings
# fail, 2 bad input, 3 internal error).
#
# GPUDOCTOR_BIN, when set, is used as it is (no install): the tests, and
# runners that bake gpudoctor into the image.
set -uo pipefail
: "${GD_PYTHON=python3}" "${GD_ARGS:=}" "${GD_POLICY:=}" "${GD_STRICT:=false}"  # an empty python: judge no live env
tmp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"

if [ -z "${GPUDOCTOR_BIN:-}" ]; then
  venv="$tmp/gpudoctor-venv"
  if [ ! -x "$venv/bin/gpudoctor" ]; then
    python3 -m venv "$venv" && timeout 600 "$venv/bin/python" -m pip install --quiet "${GITHUB_ACTION_PATH:-.}" \
      || { echo "::error title=gpudoctor::could not install gpudoctor from ${GITHUB_ACTION_PATH:-.}"; exit 3; }
  fi
  GPUDOCTOR_BIN="$venv/bin/gpudoctor"
fi

argv=(check --format github --report-out "$tmp/gpudoctor-report.json")
if [ -n "$GD_PYTHON" ]; then
  argv+=(--python "$(command -v "$GD_PYTHON" || printf '%s' "$GD_PYTHON")")
fi
[ -n "$GD_POLICY" ] && argv+=(--policy "$GD_POLICY")
[ "$GD_STRICT" = "true" ] && argv+=(--strict)
read -r -a extra <<< "$GD_ARGS"
argv+=("${extra[@]}")
exec "$GPUDOCTOR_BIN" "${argv[@]}"
