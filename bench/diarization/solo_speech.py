#!/usr/bin/env python3
"""How much speech each reference speaker has alone, and the longest stretch of it.

A diarizer that embeds one voice at a time can only give a speaker of its own to someone
who talks alone for a while; this reads that off the human references, so the speaker-count
goal can be weighed against what the recordings hold (decision 0020, revision 8).

  python solo_speech.py ../../../shared/data/diarization/*.rttm [--span 0:30]
"""
from __future__ import annotations

import os
import sys

import numpy as np

from der import STEP, read_rttm


def solo_speech(turns: list, span: tuple) -> list:
    """(speaker, seconds spoken, seconds alone, longest stretch alone), most speech first."""
    frames = int(round((span[1] - span[0]) / STEP))
    speakers = sorted({speaker for _, _, speaker in turns})
    active = np.zeros((len(speakers), frames), dtype=bool)
    for start, end, speaker in turns:
        a = max(0, int(round((start - span[0]) / STEP)))
        b = min(frames, int(round((end - span[0]) / STEP)))
        active[speakers.index(speaker), a:b] = True
    alone = active & (active.sum(axis=0) == 1)
    rows = []
    for i, speaker in enumerate(speakers):
        padded = np.concatenate(([0], alone[i].astype(np.int8), [0]))
        edges = np.flatnonzero(np.diff(padded))
        longest = int((edges[1::2] - edges[::2]).max()) if len(edges) else 0
        rows.append((speaker, active[i].sum() * STEP, alone[i].sum() * STEP, longest * STEP))
    return sorted(rows, key=lambda row: -row[1])


def main(argv: list) -> None:
    span = (0.0, 30.0)
    paths = []
    args = iter(argv)
    for arg in args:
        if arg == "--span":
            start, end = next(args).split(":")
            span = (float(start), float(end))
        else:
            paths.append(arg)
    for path in paths:
        rows = solo_speech(read_rttm(path), span)
        voices = " ".join(f"{s} {spoken:.2f}/{alone:.2f}/{longest:.2f}" for s, spoken, alone, longest in rows)
        print(f"{os.path.basename(path)[:-5]}: {len(rows)} speakers; seconds spoken/alone/longest alone: {voices}")


if __name__ == "__main__":
    main(sys.argv[1:])
