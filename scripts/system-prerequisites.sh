#!/usr/bin/env bash
# The system packages the test suite needs beyond Python: Chromium (the website's browser
# test), slurm-wlm with munge (the SLURM tests run a single-node cluster,
# scripts/slurm-local.sh) and TeX's base with booktabs (texlive-latex-base: pdflatex and
# graphicx; texlive-latex-recommended: booktabs), which compiles every LaTeX table stebkit
# writes. As root with apt-get, the missing ones are installed (one `apt-get update`, one
# `apt-get install`, each waiting up to 10 minutes for another package manager to release
# its lock); otherwise this stops with one line naming them. Daemons are looked for on
# PATH and in the system folders (SBIN_DIRS, default /usr/sbin /sbin /usr/local/sbin),
# which a user's PATH may lack.
# Run by `make test` before the first test and by .ci/run.
set -euo pipefail

have() {
  command -v "$1" >/dev/null && return 0
  for dir in ${SBIN_DIRS:-/usr/sbin /sbin /usr/local/sbin}; do
    [ -x "$dir/$1" ] && return 0
  done
  return 1
}

missing=()
have chromium || have chromium-browser || missing+=(chromium)
have slurmctld || missing+=(slurm-wlm)
have munged || missing+=(munge)
command -v pdflatex >/dev/null || missing+=(texlive-latex-base)
{ command -v kpsewhich >/dev/null && kpsewhich booktabs.sty >/dev/null; } \
  || missing+=(texlive-latex-recommended)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "error: the tests need the system packages ${missing[*]}: install them (Debian/Ubuntu, as root: apt-get install -y ${missing[*]}) and run make test again" >&2
  exit 1
fi
echo "installing ${missing[*]} for the tests (apt-get)"
export DEBIAN_FRONTEND=noninteractive
wait_lock=(-o DPkg::Lock::Timeout=600)
if ! errors=$({ apt-get "${wait_lock[@]}" update -q \
                && apt-get "${wait_lock[@]}" install -y -q "${missing[@]}"; } 2>&1 >/dev/null); then
  if [[ ${errors,,} == *"could not get lock"* || ${errors,,} == *"unable to acquire the dpkg"* ]]; then
    echo "error: another package manager is running (apt or dpkg held its lock for 10 minutes); wait until it ends, then run make test again" >&2
  else
    echo "error: apt-get could not install ${missing[*]} (${errors##*$'\n'}); install them by hand and run make test again" >&2
  fi
  exit 1
fi
