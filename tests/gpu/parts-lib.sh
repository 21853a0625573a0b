# SPDX-License-Identifier: GPL-3.0-or-later
# What overhead-parts.sh and onoff-parts.sh share; sourced.

# PARTS ("NAME|..." entries) reduced to the names listed in $ONLY, when set.
only_parts () {
  local p kept=()
  [ -n "${ONLY:-}" ] || return 0
  for p in "${PARTS[@]}"; do
    case " $ONLY " in *" ${p%%|*} "*) kept+=("$p") ;; esac
  done
  PARTS=("${kept[@]}")
}

# A part's options split: the KINESCOPE_*, CUDA_* and NVTX_* assignments
# into the array envs (for env), the rest into cli (for kinescope-cli).
split_opts () {
  local o
  envs=()
  cli=()
  for o in $1; do
    case $o in KINESCOPE_*=*|CUDA_*=*|NVTX_*=*) envs+=("$o") ;; *) cli+=("$o") ;; esac
  done
}
