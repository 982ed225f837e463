#!/usr/bin/env bash
# Fits the built-in calibrated radios (profiles/radios/*.yaml) with `netsim profiles fit` on the
# SIGCOMM'21 study's slice, then embeds them. The radios are this script's output, committed;
# run it again after changing the fit or the data, and review the diff of the residuals.
#
# Usage: scripts/fit-radios.sh [DATA]   (default ../shared/data/sigcomm21-5g; NETSIM=PATH picks
# the binary, default .build/debug/netsim)
#
# Which files fit which radio: the probes of the radio's own carrier and access; the power of
# Verizon's stationary radios from MN-Transfer (the phone standing still, at target rates),
# of Verizon's walking radios and T-Mobile's from the MN-Wild walking loops (the loops draw
# 0.6-1.1 W more than the transfers on the same network: weaker, changing signal).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data/sigcomm21-5g}
netsim=${NETSIM:-.build/debug/netsim}
probes=$data/RRC-Probe
transfer=$data/MN-Transfer/MN-Transfer_combined.csv
loops=()
for file in "$data"/MN-Wild/*.csv; do
    case "$(basename "$file")" in baseline_power.csv) ;; *) loops+=(--power "$file") ;; esac
done
study="Narayanan et al., SIGCOMM 2021, 'A Variegated Look at 5G in the Wild', artifact RRC-Probe, MN-Transfer and MN-Wild (Minneapolis, late 2020 to early 2021; Monsoon power meter)"

fit() {
    local name=$1
    shift
    "$netsim" profiles fit --name "$name" "$@" --out "profiles/radios/$name.yaml"
}

fit verizon-lte --model lte --probes "$probes/S20US_162_Verizon_4G.csv" --power "$transfer" --where band=lte \
    --description "Verizon LTE, a phone standing still (Samsung S20 Ultra probes; powers from iPerf transfers at 1-100 Mbit/s). Fitted from $study."
fit verizon-lte-walking --model lte --probes "$probes/S20US_162_Verizon_4G.csv" "${loops[@]}" --where carrier=verizon --where access=lte \
    --description "Verizon LTE, a phone carried on a walk (the LTE seconds of the walking loops, saturating iPerf). Fitted from $study."
fit verizon-nsa-low --model nr-nsa --probes "$probes/SALMONBERRY_299_Verizon_NSAlow.csv" --power "$transfer" --where band=low \
    --description "Verizon 5G NSA low-band, a phone standing still (Pixel 5 probes; powers from iPerf transfers). Fitted from $study."
fit verizon-nsa-mmwave --model nr-nsa --probes "$probes/SALMONBERRY_299_Verizon_NSAmmwave.csv" --power "$transfer" --where band=mmwave \
    --description "Verizon 5G NSA mmWave, a phone standing still (Pixel 5 probes; powers from iPerf transfers up to 2.4 Gbit/s). Fitted from $study."
fit verizon-nsa-walking --model nr-nsa --probes "$probes/SALMONBERRY_299_Verizon_NSAlow.csv" --probes "$probes/SALMONBERRY_299_Verizon_NSAmmwave.csv" \
    "${loops[@]}" --where carrier=verizon --where access=nr-nsa \
    --description "Verizon 5G NSA on a walk, low-band and mmWave mixed as the walking loops saw them (the study does not say which band each second used). Fitted from $study."
fit tmobile-lte --model lte --probes "$probes/SALMONBERRY_299_TMobile_4G.csv" "${loops[@]}" --where carrier=tmobile --where access=lte \
    --description "T-Mobile LTE (Pixel 5 probes; powers from the LTE seconds of the walking loops, few: 124 s). Fitted from $study."
fit tmobile-nsa --model nr-nsa --probes "$probes/RASPBERRY_670_TMobile_NSA.csv" "${loops[@]}" --where carrier=tmobile --where access=nr-nsa \
    --description "T-Mobile 5G NSA low-band (Pixel 5 probes; powers from the walking loops). Fitted from $study."
fit tmobile-sa --model nr-sa --probes "$probes/S20US_TMobile_SA.csv" "${loops[@]}" --where carrier=tmobile --where access=nr-sa \
    --description "T-Mobile 5G SA low-band, with RRC_INACTIVE (Samsung S20 Ultra probes; powers from the walking loops). Fitted from $study."
python3 scripts/embed-profiles.py
