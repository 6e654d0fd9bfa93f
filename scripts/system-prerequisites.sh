#!/usr/bin/env bash
# The system packages the test suite needs beyond Python: Chromium (the website's browser
# test), slurm-wlm with munge (the SLURM tests run a single-node cluster,
# scripts/slurm-local.sh) and TeX's base with booktabs (texlive-latex-base: pdflatex and
# graphicx; texlive-latex-recommended: booktabs), which compiles every LaTeX table stebkit
# writes. As root with apt-get, the missing ones are installed (one
# `apt-get update`, one `apt-get install`); otherwise this stops with one line naming them.
# Run by `make test` before the first test and by .ci/run.
set -euo pipefail

missing=()
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || missing+=(chromium)
command -v slurmctld >/dev/null || missing+=(slurm-wlm)
command -v munged >/dev/null || missing+=(munge)
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
{ apt-get update -q && apt-get install -y -q "${missing[@]}"; } >/dev/null \
  || { echo "error: apt-get could not install ${missing[*]}; install them by hand and run make test again" >&2; exit 1; }
