#!/usr/bin/env bash
# The interpreter's layers at link level (docs/internals.md, "Layers"): no layer's library may
# use a symbol that only a library it does not depend on defines — a function declared in a
# lower layer's header but defined in an upper folder. Static libraries link such a reference
# or not depending on their order; it must be a registration instead.
# Usage: check_layer_links.sh NM LAYER:DEP,DEP,...:LIBRARY ...  (lowest layer first)
set -euo pipefail
nm=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

declare -A lib closure
layers=()
for spec in "$@"; do
  IFS=: read -r layer deps path <<<"$spec"
  layers+=("$layer")
  lib[$layer]=$path
  all=""
  for d in ${deps//,/ }; do all="$all $d ${closure[$d]}"; done
  closure[$layer]=$all
  "$nm" --defined-only -g "$path" | awk 'NF == 3 { print $3 }' | sort -u >"$work/$layer.defined"
  "$nm" -u "$path" | awk '$1 == "U" { print $2 }' | sort -u >"$work/$layer.used"
done

status=0
for layer in "${layers[@]}"; do
  allowed=("$work/$layer.defined")
  for d in ${closure[$layer]}; do allowed+=("$work/$d.defined"); done
  sort -u "${allowed[@]}" >"$work/allowed"
  comm -23 "$work/$layer.used" "$work/allowed" >"$work/outside"
  for other in "${layers[@]}"; do
    [[ $other == "$layer" || " ${closure[$layer]} " == *" $other "* ]] && continue
    comm -12 "$work/outside" "$work/$other.defined" >"$work/wrong"
    if [[ -s $work/wrong ]]; then
      echo "weft_$layer uses what only weft_$other defines ($layer does not depend on $other):"
      c++filt <"$work/wrong" | head -n 10 | sed 's/^/  /'
      status=1
    fi
  done
done
exit $status
