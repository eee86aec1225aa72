#!/usr/bin/env python3
"""Diarization error rate as usually reported: (missed + false alarm + confusion) / reference
speech, with a collar (default 0.25 s) on each side of every reference boundary left unscored,
overlapping reference speech scored, optimal one-to-one speaker mapping. Frame-based at 10 ms.

  python der.py reference.rttm hypothesis.json|hypothesis.rttm [--collar 0.25] [--uem 0:30]
"""
from __future__ import annotations

import itertools
import json
import sys

import numpy as np

STEP = 0.01


def read_rttm(path: str) -> list:
    turns = []
    for line in open(path):
        parts = line.split()
        if len(parts) >= 8 and parts[0] == "SPEAKER":
            start, dur = float(parts[3]), float(parts[4])
            turns.append((start, start + dur, parts[7]))
    return turns


def read_turns(path: str) -> list:
    if path.endswith(".rttm"):
        return read_rttm(path)
    data = json.load(open(path))
    data = data.get("result", data)
    return [(t["start"], t["end"], t["speaker"]) for t in data["turns"]]


def der(reference: list, hypothesis: list, collar: float = 0.25, uem: tuple | None = None) -> dict:
    end = max([e for _, e, _ in reference + hypothesis] + [0.0])
    if uem:
        end = uem[1]
    n = int(np.ceil(end / STEP)) + 1
    ref_names = sorted({s for _, _, s in reference})
    hyp_names = sorted({s for _, _, s in hypothesis})
    ref = np.zeros((n, len(ref_names)), bool)
    hyp = np.zeros((n, max(1, len(hyp_names))), bool)
    for s, e, name in reference:
        ref[int(round(s / STEP)) : int(round(e / STEP)), ref_names.index(name)] = True
    for s, e, name in hypothesis:
        hyp[int(round(s / STEP)) : int(round(e / STEP)), hyp_names.index(name)] = True
    scored = np.ones(n, bool)
    if uem:
        scored[: int(round(uem[0] / STEP))] = False
        scored[int(round(uem[1] / STEP)) :] = False
    c = int(round(collar / STEP))
    for s, e, _ in reference:
        for b in (int(round(s / STEP)), int(round(e / STEP))):
            scored[max(0, b - c) : b + c] = False
    ref, hyp = ref[scored], hyp[scored]
    n_ref = ref.sum(axis=1)
    n_hyp = hyp.sum(axis=1)
    total = n_ref.sum()
    # Best one-to-one mapping: maximise co-occurring frames.
    overlap = ref.T.astype(np.int64) @ hyp.astype(np.int64)
    best = 0
    best_map = {}
    if len(ref_names) and len(hyp_names):
        r_idx, h_idx = range(len(ref_names)), range(len(hyp_names))
        if len(ref_names) <= len(hyp_names):
            for perm in itertools.permutations(h_idx, len(ref_names)):
                score = sum(overlap[i, j] for i, j in zip(r_idx, perm))
                if score > best:
                    best, best_map = score, dict(zip(r_idx, perm))
        else:
            for perm in itertools.permutations(r_idx, len(hyp_names)):
                score = sum(overlap[i, j] for i, j in zip(perm, h_idx))
                if score > best:
                    best, best_map = score, dict(zip(perm, h_idx))
    correct = np.zeros(len(ref), np.int64)
    for i, j in best_map.items():
        correct += ref[:, i] & hyp[:, j]
    missed = np.maximum(0, n_ref - n_hyp).sum()
    false_alarm = np.maximum(0, n_hyp - n_ref).sum()
    confusion = (np.minimum(n_ref, n_hyp) - correct).sum()
    return {
        "der": float((missed + false_alarm + confusion) / max(1, total)),
        "missed": float(missed / max(1, total)),
        "false_alarm": float(false_alarm / max(1, total)),
        "confusion": float(confusion / max(1, total)),
        "reference_speakers": len(ref_names),
        "hypothesis_speakers": len(hyp_names),
        "scored_seconds": float(total * STEP),
    }


if __name__ == "__main__":
    args = sys.argv[1:]
    collar = 0.25
    uem = None
    if "--collar" in args:
        i = args.index("--collar")
        collar = float(args[i + 1])
        del args[i : i + 2]
    if "--uem" in args:
        i = args.index("--uem")
        uem = tuple(float(x) for x in args[i + 1].split(":"))
        del args[i : i + 2]
    print(json.dumps(der(read_rttm(args[0]), read_turns(args[1]), collar, uem)))
