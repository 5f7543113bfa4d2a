# The end: summary table, summary.json and topology.svg in the output folder.

write_fabrics_json() {
  jq -n --slurpfile a "$RUN/fabric-a.json" --slurpfile b "$RUN/fabric-b.json" --argjson sms "$SM_JSON" '
    [ {name: "a", fa: $a[0], shape: "3-level fat tree"}, {name: "b", fa: $b[0], shape: "2-level fat tree"} ]
    | map(. as $f | {name, shape, id: .fa.fabric_id, hosts: (.fa.hosts | length),
                     switches: (.fa.switches | length), net: ("fabric-" + .name + ".net"),
                     sms: [ $sms[] | select(.fabric == $f.name) ]})' >"$STATE/fabrics.json"
}

svg_is_valid() {
  head -c 200 "$1" | grep -q '<svg\|<?xml' && tail -c 20 "$1" | grep -q '</svg>'
}

step_report() {
  CURRENT_STEP="summary"
  printf '\n%s[%s] summary%s\n' "$C_BOLD" "$(elapsed)" "$C_OFF"
  write_fabrics_json
  "$REPORT" summary --state "$STATE" --out "$OUT" || fail "weft-demo-report summary failed"
  dot -Tsvg "$OUT/topology.dot" -o "$OUT/topology.svg" || fail "graphviz dot could not draw topology.dot"
  svg_is_valid "$OUT/topology.svg" || fail "topology.svg is not a complete SVG document"
  jq --argjson total "$(awk -v a="$DEMO_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" \
    '.duration_s = $total' "$OUT/summary.json" >"$OUT/summary.json.tmp" && mv "$OUT/summary.json.tmp" "$OUT/summary.json"
  echo
  info "wrote $OUT/summary.json, $OUT/topology.svg (and topology.dot); logs in $RUN/logs"
}
