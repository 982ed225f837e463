#!/usr/bin/env python3
"""Compares a live and a model `netsim bench` JSON report of the same run (profile, seed,
devices, duration), per transport, against the model engine's acceptance bounds:
payload and wire bytes per minute, promotions, wake seconds and energy per device within 10%;
events and messages delivered equal; reconnects within one per device.

Usage: compare-engines.py LIVE.json MODEL.json   (exit 1 when a bound is missed)
"""
import json
import sys


def rows(live, model, devices):
    def per_device(report, key):
        return report["perDevice"][key]["mean"]

    return [
        ("payload bytes/min", live["bytes"]["perMinute"], model["bytes"]["perMinute"], "ratio"),
        ("wire bytes/min", live["bytes"]["wire"]["perMinute"], model["bytes"]["wire"]["perMinute"], "ratio"),
        ("promotions/device", per_device(live, "promotions"), per_device(model, "promotions"), "ratio"),
        ("wake s/device", per_device(live, "wakeSeconds"), per_device(model, "wakeSeconds"), "ratio"),
        ("energy J/device", per_device(live, "energyJoules"), per_device(model, "energyJoules"), "ratio"),
        ("events delivered", live["events"]["delivered"], model["events"]["delivered"], "equal"),
        ("messages delivered", live["messages"]["delivered"], model["messages"]["delivered"], "equal"),
        ("reconnects (fleet)", live["reconnects"], model["reconnects"], f"within {devices}"),
        ("p95 event latency ms", live["latencyMs"]["p95"], model["latencyMs"]["p95"], "shown"),
    ]


def holds(live, model, rule):
    if rule == "ratio":
        return abs(model - live) <= 0.10 * max(abs(live), 1e-9) or abs(model - live) < 1e-9
    if rule == "equal":
        return live == model
    if rule.startswith("within"):
        return abs(live - model) <= int(rule.split()[1])
    return True


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    live, model = (json.load(open(path)) for path in sys.argv[1:])
    devices = live["devicesPerTransport"]
    failed = False
    print(f"profile {live['profile']}, seed {live['seed']}, {devices} devices, {live['durationSeconds']:.0f} s")
    print(f"| transport | figure | live | model | model/live | bound |")
    print("|---|---|---:|---:|---:|---|")
    for transport in ("rest", "ws", "grpc"):
        if transport not in live["transports"] or transport not in model["transports"]:
            continue
        for name, a, b, rule in rows(live["transports"][transport], model["transports"][transport], devices):
            ok = holds(a, b, rule)
            failed |= not ok
            ratio = f"{b / a:.3f}" if a else "-"
            mark = "" if ok else " **missed**"
            print(f"| {transport} | {name} | {a:.1f} | {b:.1f} | {ratio} | {rule}{mark} |")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
