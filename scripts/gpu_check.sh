#!/usr/bin/env bash
# stebkit on a GPU machine without network or data mirror, in under 10 minutes, from a
# bundle made beforehand (scripts/gpu_bundle.py):
#
#   scripts/gpu_check.sh --prepare BUNDLE     # here: with the data mirror or the network
#   scripts/gpu_check.sh BUNDLE               # there: torch, transformers and
#                                             # sentence-transformers installed
#
# Four parts, one summary line each at the end:
#   1. the GPU encoder bench (stebkit against sentence-transformers, both dtypes);
#   2. `stebkit run --device cuda` on 8 lite datasets and the same run on the CPU, compared
#      record by record;
#   3. `stebkit train --device cuda --steps 200`, with its speed;
#   4. the held-out evaluation of the model part 3 trained, beside its base.
# DEVICE=cpu runs it all on the CPU (a check of the script); TEXTS (bench paragraphs,
# default 20000), STEPS (training steps, default 200), TRAIN_ARGS (more options of
# `stebkit train`) and PYTHON can be set. Exit status 1
# when a part failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
if [ "${1:-}" = "--prepare" ]; then
    [ $# -eq 2 ] || { echo "usage: $0 --prepare BUNDLE" >&2; exit 2; }
    exec "$py" "$here/gpu_bundle.py" prepare "$2" --texts "${TEXTS:-20000}"
fi
[ $# -eq 1 ] || { echo "usage: $0 BUNDLE  (or $0 --prepare BUNDLE)" >&2; exit 2; }
bundle=$(cd "$1" && pwd)
device=${DEVICE:-cuda}
texts=${TEXTS:-20000}
steps=${STEPS:-200}
work=$(mktemp -d)
summary=()
status=0

"$py" "$here/gpu_bundle.py" restore "$bundle" || exit 1
unset STEBKIT_MIRROR
export PYTHONPATH="$bundle/src:$bundle/site" STEBKIT_CACHE="$bundle/cache" STEBKIT_OFFLINE=1 \
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 MPLBACKEND=Agg
datasets=$("$py" -c "import sys; sys.path.insert(0, '$here'); import gpu_bundle; print(*gpu_bundle.DATASETS)")
models=$("$py" -c "import sys; sys.path.insert(0, '$here'); import gpu_bundle; print(*gpu_bundle.MODELS)")
held_out=$("$py" -c "import sys; sys.path.insert(0, '$here'); import gpu_bundle; print(*gpu_bundle.HELD_OUT)")

part() {  # part NAME COMMAND...: run it, its output in $work/NAME.log; a failure is noted
    local name=$1
    shift
    echo "== $name: $*"
    local start=$SECONDS
    if "$@" >"$work/$name.log" 2>&1; then
        tail -n 20 "$work/$name.log"
        echo "== $name: ok in $((SECONDS - start)) s"
        return 0
    fi
    tail -n 20 "$work/$name.log"
    echo "== $name: FAILED after $((SECONDS - start)) s (log: $work/$name.log)"
    status=1
    return 1
}

# 1. the encoder bench
bench=(--device "$device" --models all-MiniLM-L6-v2 --texts "$texts")
[ "$device" = cpu ] && bench+=(--gpu-contest --rounds 1)
if part bench "$py" "$bundle/src/benchmarks/bench_encoders.py" "${bench[@]}"; then
    summary+=("bench: $(grep -E '^  stebkit bfloat16' "$work/bench.log" | sed 's/^ *//')")
else
    summary+=("bench: FAILED")
fi

# 2. the same run on the device and on the CPU, record by record
run=("$py" -m stebkit run --datasets $datasets --models $models --no-progress)
if part run-device "${run[@]}" --device "$device" --output "$work/records-device" &&
    part run-cpu "${run[@]}" --device cpu --output "$work/records-cpu" &&
    part compare "$py" "$here/gpu_bundle.py" compare "$work/records-cpu" \
        "$work/records-device"; then
    summary+=("run on $device: $(grep -E '^records' "$work/compare.log")")
else
    summary+=("run on $device: FAILED")
fi

# 3. training steps and their speed
start=$SECONDS
if part train "$py" -m stebkit train --device "$device" --steps "$steps" \
    --output "$work/style" --no-progress ${TRAIN_ARGS:-}; then
    seconds=$((SECONDS - start))
    summary+=("train on $device: $steps steps in $seconds s ($("$py" -c \
        "print(f'{$steps / max($seconds, 1):.2f}')") steps/s, loading and saving included)")
else
    summary+=("train on $device: FAILED")
fi

# 4. the held-out evaluation of the trained model beside its base
if [ -f "$work/style/config.json" ] &&
    part heldout-run "$py" -m stebkit run --datasets $held_out --device "$device" \
        --models "$work/style" all-MiniLM-L6-v2 --output "$work/held-out" --no-progress &&
    part heldout "$py" "$here/gpu_bundle.py" heldout "$work/held-out"; then
    summary+=("held-out: $(tail -n 1 "$work/heldout.log")")
else
    summary+=("held-out: FAILED")
    status=1
fi

echo
echo "== summary ($device; logs in $work)"
printf '%s\n' "${summary[@]}"
exit $status
