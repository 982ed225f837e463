#!/usr/bin/env python3
"""Generates the synthetic LTE drive traces used by the built-in `lte-trace` profile.

Writes profiles/traces/synthetic-lte-drive.up and .down: mahimahi-format traces (one line per
1500-byte delivery opportunity, in milliseconds from the start; see
shared/reference/radio-parameters.md), 30 s long, so the trace repeats every 30 s.

Why synthetic: the real Saturator traces (Winstein et al., NSDI 2013, published with mahimahi
under the GPL) may not be copied into this repository. These imitate their character: the
capacity follows a Markov chain over signal conditions (good, fair, poor, edge of coverage)
stepped every 250 ms, shared by both directions as a moving phone's are, with per-millisecond
noise on top. Means come out near 4 Mbit/s down and 1 Mbit/s up, like the AT&T LTE drive
(4.6 / 1.9 Mbit/s) but smaller, so each file stays a few tens of KB.

Deterministic: a fixed seed and only random.Random.random(), whose sequence Python keeps
stable across versions. Run it again only to change the traces; then run
scripts/embed-profiles.py.
"""

import pathlib
import random

SEED = 20130402  # NSDI 2013's first day, for want of a better number
PERIOD_MS = 30_000
STEP_MS = 250
BYTES_PER_OPPORTUNITY = 1500

# Signal conditions: (name, downlink Mbit/s, uplink Mbit/s).
STATES = [
    ("good", 7.0, 1.8),
    ("fair", 4.5, 1.1),
    ("poor", 2.0, 0.5),
    ("edge", 0.4, 0.1),
]
# P(next state | state) per 250 ms step: conditions persist for seconds and mostly drift to
# a neighbouring state.
TRANSITIONS = [
    [0.90, 0.10, 0.00, 0.00],
    [0.06, 0.88, 0.06, 0.00],
    [0.00, 0.10, 0.84, 0.06],
    [0.00, 0.05, 0.20, 0.75],
]
NOISE = 0.5  # each millisecond's capacity is the state's rate times 1 +- up to 50 %

OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "profiles" / "traces"


def state_sequence(rng):
    """The signal state for every 250 ms step of the period."""
    state = 1
    states = []
    for _ in range(PERIOD_MS // STEP_MS):
        states.append(state)
        draw = rng.random()
        for next_state, probability in enumerate(TRANSITIONS[state]):
            draw -= probability
            if draw < 0:
                state = next_state
                break
    return states


def opportunities(rng, states, column):
    """Delivery opportunity times (ms) for one direction; the last is the period."""
    times = []
    credit = 0.0
    for ms in range(1, PERIOD_MS + 1):
        mbps = STATES[states[(ms - 1) // STEP_MS]][column]
        credit += mbps * 1e6 / 8 / 1000 * (1 + NOISE * (2 * rng.random() - 1))
        while credit >= BYTES_PER_OPPORTUNITY:
            times.append(ms)
            credit -= BYTES_PER_OPPORTUNITY
    if not times or times[-1] != PERIOD_MS:
        times.append(PERIOD_MS)  # the last line sets the period
    return times


def main():
    rng = random.Random(SEED)
    states = state_sequence(rng)
    for suffix, column in (("down", 1), ("up", 2)):
        times = opportunities(rng, states, column)
        path = OUTPUT / f"synthetic-lte-drive.{suffix}"
        path.write_text("".join(f"{t}\n" for t in times), encoding="ascii")
        mbps = len(times) * BYTES_PER_OPPORTUNITY * 8 / (PERIOD_MS / 1000) / 1e6
        print(f"wrote {path.name}: {len(times)} opportunities, {mbps:.2f} Mbit/s mean")


if __name__ == "__main__":
    main()
