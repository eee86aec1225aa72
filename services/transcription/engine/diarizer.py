#!/usr/bin/env python3
"""Offline speaker diarization for the transcription worker: who spoke when, on the CPU.

  python diarizer.py '{"audio": "/path", "weights": "/path/pretrained.pt",
                       "min_speakers": null, "max_speakers": null, "threshold": null}'

prints one JSON line: {"ok": true, "result": {"turns": [{"start", "end", "speaker"}],
"speakers": ["S1", ...], "embeddings": {"S1": [256 floats], ...}, "stats": {...}}} or {"ok": false, "error": {"kind", "message"}}.

Pipeline (decision 0020): Silero VAD (the ONNX model inside faster-whisper's wheel, its
score the mean of a forward and a time-reversed pass) finds speech twice: tight regions to cut windows from, and wider ones (hysteresis, 1 s pauses
bridged) that the turns cover; every 1.6 s window of speech (hop 0.8 s) gets a d-vector from Resemblyzer's GE2E
speaker encoder (3-layer LSTM 256 + linear, weights from its PyPI wheel) run here in
numpy, so no torch; each window's vector is averaged with its contiguous neighbours, the
windows of the whole file are clustered together (average-linkage agglomerative on cosine
distance, stopped at a threshold chosen by leave-one-out on real meetings, bounded by
min/max speakers; clusters too small to be a person join their nearest speaker; a voice
pyannote's segmentation-3.0 hears alone beside another inside one 10 s chunk, where the
clustering found one, becomes a speaker where the model heard it, unless forcing the clustering
to the model's count gives clusters big enough to be speakers), and each stretch of speech
(Silero's, plus what segmentation-3.0 is sure of) gets the speaker of the nearest window centre;
a pause between two turns of one speaker where that model hears speech is theirs too, and
where it hears two people at once, a second speaker gets a turn too.
Audio is decoded by PyAV and streamed in blocks, so memory grows only with the number of windows
(1 KiB each), and clustering runs on at most MAX_CLUSTER_WINDOWS of them.
"""

from __future__ import annotations

import os

# Small matrices, one window batch at a time: a multi-threaded BLAS spends its time spinning
# (measured: 9.0 CPU s with the default threads, 1.0 with one, same output; decision 0020).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import bisect
import json
from concurrent.futures import ThreadPoolExecutor
import pickle
import resource
import struct
import sys
import time

import numpy as np

SAMPLE_RATE = 16000
N_FFT = 400  # 25 ms
HOP = 160  # 10 ms
N_MELS = 40
WINDOW_FRAMES = 160  # 1.6 s, what the encoder was trained on
WINDOW_SECONDS = WINDOW_FRAMES * HOP / SAMPLE_RATE
STEP_SECONDS = 0.8
MIN_REGION_SECONDS = 0.4
BLOCK_SECONDS = 60.0
# Cosine distance between cluster averages above which two clusters are different people
# (on context-averaged embeddings; chosen by leave-one-out, bench/diarization/tune.py).
DEFAULT_THRESHOLD = 0.25
MAX_CLUSTER_WINDOWS = 2000
VAD_THRESHOLD = 0.3
VAD_FRAME = 512  # Silero's frame at 16 kHz, 32 ms
# Every block is scaled to this peak before the VAD; one peaking under SILENT_PEAK (−70 dBFS,
# a few steps of 16-bit audio) is silence and is left alone.
VAD_PEAK = 0.5
SILENT_PEAK = 10 ** (-70 / 20)
# Speech as reported in the turns: Silero with hysteresis, a stretch starts where the score
# reaches the onset and ends only after TURN_MIN_SILENCE_MS below the offset. The high onset
# keeps noise out; the low offset and the long silence keep quiet syllables and short pauses
# inside a turn, as human turns do. The embedded windows still come from the tighter
# VAD_THRESHOLD regions, so pauses never enter an embedding. Chosen by leave-one-out over
# the AMI excerpts (bench/diarization/tune.py --vad; decision 0020).
TURN_ONSET = 0.5
TURN_OFFSET = 0.15
TURN_MIN_SILENCE_MS = 1000
# A cluster holding less than this share of the file's windows is not a speaker of its own
# (chosen with the threshold by leave-one-out over the AMI excerpts; decision 0020).
MIN_SPEAKER_SHARE = 0.10
MAX_MIN_SPEAKER_WINDOWS = 30  # 24 s of speech at the 0.8 s step
# Each window's embedding is averaged with this many contiguous neighbours on each side
# before clustering (1: 3.2 s of speech per vector instead of 1.6 s).
CONTEXT_WINDOWS = 1
# Where pyannote's segmentation-3.0 puts two people at once with at least this probability, a
# second speaker is added (the speaker of the nearest other turn). Leave-one-out over the AMI
# excerpts (bench/diarization/pack.py; decision 0020, revision 4) finds the mean flat from 0.2
# to 0.3 (27.4% either way); the higher one adds fewer turns where it is unsure.
OVERLAP_THRESHOLD = 0.3
# Where segmentation-3.0 hears this many people each alone for at least SOLO_SECONDS inside one
# 10 s chunk, the file has at least that many speakers: clustering 1.6 s window embeddings
# across the file merges a voice heard for a few seconds into a louder one, the model inside a
# chunk does not (decision 0020, revision 5). Such a voice is given the stretches where the model
# hears it (add_heard_voices, revision 6; 0.5–1 s score alike, 1.25 s loses trn03's and trn06's
# second voice: tune.py --solo).
SOLO_SECONDS = 1.0
# Where segmentation-3.0 is this sure that someone talks, the turns cover it even if Silero
# missed it (quiet far-field speech under breath noise, revision 2). Only the turns: windows cut
# from it blur the clusters. 0.85–0.95 score alike on the AMI excerpts; under 0.8 it adds false
# alarm (decision 0020, revision 5).
SURE_SPEECH = 0.9
# Between two turns of one speaker, at most PAUSE_SECONDS apart, the stretches segmentation-3.0
# hears as speech more likely than not (≥ PAUSE_SPEECH) are that speaker's. Over the AMI
# excerpts, such frames are reference speech 3.7 s to 0.4 s, where the same model's 0.5–0.9
# outside a turn is right no more often than wrong (1.8 s to 2.0 s): the flanking turns are
# the evidence that lowers the bar. 0.4–0.6 and 3–5 s score alike (decision 0020, revision 6).
PAUSE_SPEECH = 0.5
PAUSE_SECONDS = 3.0
WEIGHTS_MEMBER = "resemblyzer/pretrained.pt"
BATCH = 32


class DiarizeError(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


# --- weights: PyTorch's legacy (pre-zip) serialization, read without torch ---------------


class _Storage:
    def __init__(self, key: str, dtype):
        self.key = key
        self.dtype = dtype
        self.data = None


_DTYPES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "LongStorage": np.int64, "IntStorage": np.int32}


def _rebuild_tensor(storage, offset, size, stride, *rest):
    return ("tensor", storage, offset, tuple(size), tuple(stride))


class _Unpickler(pickle.Unpickler):
    def __init__(self, f, storages):
        super().__init__(f)
        self.storages = storages

    def find_class(self, module, name):
        if module == "torch._utils" and name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
            return _rebuild_tensor
        if module == "torch" and name in _DTYPES:
            return name
        if module == "collections" and name == "OrderedDict":
            import collections

            return collections.OrderedDict
        raise pickle.UnpicklingError(f"unexpected {module}.{name} in the weights file")

    def persistent_load(self, pid):
        _, storage_type, key, _location, _size = pid[:5]
        if key not in self.storages:
            self.storages[key] = _Storage(key, _DTYPES[storage_type])
        return self.storages[key]


def load_weights(path: str) -> dict:
    if not os.path.isfile(path):
        raise DiarizeError("not_found", f"Speaker-encoder weights not found: {path}")
    storages: dict = {}
    if path.endswith(".whl"):
        # The weights stay inside Resemblyzer's wheel, as verified (sha256) on download.
        import io
        import zipfile

        try:
            with zipfile.ZipFile(path) as wheel:
                data = wheel.read(WEIGHTS_MEMBER)
        except (zipfile.BadZipFile, KeyError) as error:
            raise DiarizeError("bad_model", f"Cannot read {WEIGHTS_MEMBER} from {path}: {error}") from error
        source = io.BytesIO(data)
    else:
        source = open(path, "rb")
    with source as f:
        try:
            for _ in range(3):  # magic number, protocol version, system info
                pickle.load(f)
            checkpoint = _Unpickler(f, storages).load()
            keys = pickle.load(f)
            for key in keys:
                (count,) = struct.unpack("<q", f.read(8))
                storage = storages[key]
                itemsize = np.dtype(storage.dtype).itemsize
                storage.data = np.frombuffer(f.read(count * itemsize), dtype=storage.dtype)
        except (pickle.UnpicklingError, KeyError, struct.error, EOFError, ValueError) as error:
            raise DiarizeError("bad_model", f"Cannot read the speaker-encoder weights in {path}: {error}") from error
    state = {}
    for name, value in checkpoint["model_state"].items():
        _, storage, offset, size, stride = value
        itemsize = storage.data.itemsize
        state[name] = np.lib.stride_tricks.as_strided(
            storage.data[offset:], shape=size, strides=tuple(s * itemsize for s in stride)
        ).astype(np.float32)
    return state


class Encoder:
    """Resemblyzer's VoiceEncoder forward pass: LSTM(40→256, 3 layers) → last hidden →
    linear 256 → ReLU → L2 norm."""

    def __init__(self, state: dict):
        try:
            self.layers = [
                (
                    np.ascontiguousarray(state[f"lstm.weight_ih_l{i}"].T),
                    np.ascontiguousarray(state[f"lstm.weight_hh_l{i}"].T),
                    state[f"lstm.bias_ih_l{i}"] + state[f"lstm.bias_hh_l{i}"],
                )
                for i in range(3)
            ]
            self.linear_w = np.ascontiguousarray(state["linear.weight"].T)
            self.linear_b = state["linear.bias"]
        except KeyError as error:
            raise DiarizeError("bad_model", f"The speaker-encoder weights lack {error}") from error
        self.hidden = self.layers[0][1].shape[0]

    def __call__(self, mels: np.ndarray) -> np.ndarray:
        """mels: (batch, frames, 40) → (batch, 256) unit vectors."""
        x = mels
        batch, frames, _ = x.shape
        h = None
        for w_ih, w_hh, bias in self.layers:
            gates_in = x @ w_ih + bias  # (batch, frames, 4H), all time steps at once
            h = np.zeros((batch, self.hidden), np.float32)
            c = np.zeros((batch, self.hidden), np.float32)
            outputs = np.empty((batch, frames, self.hidden), np.float32)
            n = self.hidden
            for t in range(frames):
                g = gates_in[:, t] + h @ w_hh
                i = _sigmoid(g[:, :n])
                f = _sigmoid(g[:, n : 2 * n])
                o = _sigmoid(g[:, 3 * n :])
                c = f * c + i * np.tanh(g[:, 2 * n : 3 * n])
                h = o * np.tanh(c)
                outputs[:, t] = h
            x = outputs
        raw = np.maximum(h @ self.linear_w + self.linear_b, 0.0)
        return raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-9)


def _sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


# --- features: librosa's default mel spectrogram (power, Slaney mel, Hann, centred) --------


def _hz_to_mel(f):
    f = np.asanyarray(f, dtype=np.float64)
    linear = f / (200.0 / 3)
    log_part = 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0)
    return np.where(f >= 1000.0, log_part, linear)


def _mel_to_hz(m):
    m = np.asanyarray(m, dtype=np.float64)
    linear = m * (200.0 / 3)
    log_part = 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0))
    return np.where(m >= 15.0, log_part, linear)


def mel_filters() -> np.ndarray:
    fft_freqs = np.linspace(0, SAMPLE_RATE / 2, 1 + N_FFT // 2)
    mel_f = _mel_to_hz(np.linspace(_hz_to_mel(0.0), _hz_to_mel(SAMPLE_RATE / 2), N_MELS + 2))
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_f[2 : N_MELS + 2] - mel_f[:N_MELS]))[:, None]
    return weights.astype(np.float32)


_MEL = None
_HANN = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)).astype(np.float32)


def mel_spectrogram(wav: np.ndarray) -> np.ndarray:
    """(frames, 40) power mel spectrogram of a 16 kHz clip, frames every 10 ms."""
    global _MEL
    if _MEL is None:
        _MEL = mel_filters()
    padded = np.pad(wav, (N_FFT // 2, N_FFT // 2), mode="reflect")
    n_frames = 1 + (len(padded) - N_FFT) // HOP
    frames = np.lib.stride_tricks.as_strided(
        padded, shape=(n_frames, N_FFT), strides=(padded.strides[0] * HOP, padded.strides[0])
    )
    spectrum = np.abs(np.fft.rfft(frames * _HANN, axis=1)) ** 2
    return (spectrum.astype(np.float32) @ _MEL.T).astype(np.float32)


def normalize_volume(wav: np.ndarray, target_dbfs: float = -30.0) -> np.ndarray:
    """The encoder was trained on audio at −30 dBFS; its input is linear power, so level matters."""
    rms = float(np.sqrt(np.mean(wav.astype(np.float64) ** 2)))
    if rms < 1e-6:
        return wav
    return wav * (10 ** (target_dbfs / 20) / rms)


# --- audio in blocks -------------------------------------------------------------------------


def audio_blocks(path: str):
    """Yields 16 kHz mono float32 blocks of BLOCK_SECONDS, never the whole file. Decoded by
    PyAV (the engine's own libav, inside its wheel), so no ffmpeg program is needed
    (decision 0020): a server without a system ffmpeg diarizes like any other."""
    import av

    if not os.path.isfile(path):
        raise DiarizeError("bad_audio", f"Audio file not found: {path}")
    block_samples = int(BLOCK_SECONDS * SAMPLE_RATE)
    pending: list = []
    held = 0
    try:
        with av.open(path, metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise DiarizeError("bad_audio", "Cannot decode audio: the file has no audio stream")
            stream = container.streams.audio[0]
            # Float samples, never 16-bit: a quiet recording (a far microphone, a low input
            # gain, a 32-bit float source) keeps its detail; rounded to 16 bits, speech 40 dB
            # down is a few steps of quantisation noise and its voices merge (decision 0020).
            resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)

            def resampled(frame):
                for out in resampler.resample(frame):
                    yield out.to_ndarray().reshape(-1)

            def frames():
                for frame in container.decode(stream):
                    yield from resampled(frame)
                yield from resampled(None)  # what the resampler still holds

            for samples in frames():
                pending.append(samples)
                held += len(samples)
                while held >= block_samples:
                    joined = np.concatenate(pending)
                    yield joined[:block_samples]
                    rest = joined[block_samples:]
                    pending = [rest] if len(rest) else []
                    held = len(rest)
    except av.FFmpegError as error:
        raise DiarizeError("bad_audio", f"Cannot decode audio: {error}") from error
    if held:
        yield np.concatenate(pending)


def vad_level(block: np.ndarray) -> np.ndarray:
    """Silero's scores depend on the level (far-field meeting audio near −40 dBFS loses much
    of its speech), so every block reaches the VAD at the same peak, whatever the recording
    gain: the same speech is found at −40 dB as at full scale. A block whose peak is under
    SILENT_PEAK holds nothing to raise and is left as it is (decision 0020)."""
    peak = float(np.abs(block).max()) if len(block) else 0.0
    if peak < SILENT_PEAK:
        return block
    return block * (VAD_PEAK / peak)


def speech_scores(block: np.ndarray) -> np.ndarray:
    """Silero's speech score per 32 ms frame, the mean of a forward pass and a pass over the
    time-reversed audio. Silero is recurrent: after a stretch of breath pops or clicks its
    state holds quiet far-field speech under the threshold, and a burst of noise lifts the
    frames that follow it. Read backwards, each frame has the other side's history, so the
    mean keeps speech that one direction suppresses and halves a score that only one
    direction's history inflates (decision 0020, revision 3). Costs the same as the two
    forward passes it replaces: both region sets are read from these scores."""
    from faster_whisper.vad import get_vad_model

    model = get_vad_model()
    audio = vad_level(block)
    padded = np.pad(audio, (0, VAD_FRAME - len(audio) % VAD_FRAME))
    forward = np.asarray(model(padded)).reshape(-1)
    backward = np.asarray(model(np.ascontiguousarray(padded[::-1]))).reshape(-1)[::-1]
    return (forward + backward) / 2


class _Scored:
    """Stands in for Silero inside faster-whisper's get_speech_timestamps (which always runs
    its own model), so the region rules (hysteresis, padding, minimum lengths) stay the
    library's while the scores are speech_scores'."""

    def __init__(self, scores: np.ndarray):
        self.scores = scores

    def __call__(self, _audio):
        return self.scores


def speech_regions(
    block: np.ndarray,
    offset: float,
    threshold: float = VAD_THRESHOLD,
    offset_threshold: float | None = None,
    min_silence_ms: int = 250,
    scores: np.ndarray | None = None,
) -> list:
    import faster_whisper.vad as fv

    options = fv.VadOptions(
        threshold=threshold,
        neg_threshold=offset_threshold,
        min_silence_duration_ms=min_silence_ms,
        speech_pad_ms=60,
        min_speech_duration_ms=200,
    )
    own = fv.get_vad_model
    fv.get_vad_model = lambda: _Scored(speech_scores(block) if scores is None else scores)
    try:
        found = fv.get_speech_timestamps(block, options, sampling_rate=SAMPLE_RATE)
    finally:
        fv.get_vad_model = own
    return [[offset + r["start"] / SAMPLE_RATE, offset + r["end"] / SAMPLE_RATE] for r in found]


def window_starts(start: float, end: float, step: float = STEP_SECONDS) -> list:
    length = end - start
    if length < MIN_REGION_SECONDS:
        return []
    if length <= WINDOW_SECONDS:
        return [start]
    count = int(np.ceil((length - WINDOW_SECONDS) / step)) + 1
    last = end - WINDOW_SECONDS
    return [min(start + k * step, last) for k in range(count)]


# --- clustering ------------------------------------------------------------------------------


def cluster(embeddings: np.ndarray, threshold: float, min_speakers: int, max_speakers: int | None) -> np.ndarray:
    """Average-linkage agglomerative clustering on cosine distance over the whole file.
    Merges while the closest pair is nearer than `threshold` or there are more clusters
    than max_speakers, and never below min_speakers."""
    n = len(embeddings)
    if n == 0:
        return np.zeros(0, np.int64)
    if n == 1:
        return np.zeros(1, np.int64)
    if n > MAX_CLUSTER_WINDOWS:
        # Long files: cluster an even subsample, then give every window its nearest centre.
        chosen = np.linspace(0, n - 1, MAX_CLUSTER_WINDOWS).round().astype(np.int64)
        sub = cluster(embeddings[chosen], threshold, min_speakers, max_speakers)
        return nearest_centre(embeddings, embeddings[chosen], sub)
    distance = (1.0 - embeddings @ embeddings.T).astype(np.float64)
    np.fill_diagonal(distance, np.inf)
    sizes = np.ones(n)
    parent = np.arange(n)
    clusters = n
    floor = max(1, min_speakers)
    while clusters > floor:
        flat = int(np.argmin(distance))
        a, b = divmod(flat, n)
        best = distance[a, b]
        if best > threshold and (max_speakers is None or clusters <= max_speakers):
            break
        # Lance–Williams update for average linkage: b joins a.
        merged = (sizes[a] * distance[a] + sizes[b] * distance[b]) / (sizes[a] + sizes[b])
        distance[a] = merged
        distance[:, a] = merged
        distance[a, a] = np.inf
        distance[b] = np.inf
        distance[:, b] = np.inf
        sizes[a] += sizes[b]
        parent[parent == b] = a
        clusters -= 1
    _, labels = np.unique(parent, return_inverse=True)
    return labels


def nearest_centre(embeddings: np.ndarray, sample: np.ndarray, labels: np.ndarray) -> np.ndarray:
    centres = np.stack([sample[labels == k].mean(axis=0) for k in range(labels.max() + 1)])
    centres /= np.maximum(np.linalg.norm(centres, axis=1, keepdims=True), 1e-9)
    return np.argmax(embeddings @ centres.T, axis=1)


def absorb_small(embeddings: np.ndarray, labels: np.ndarray, min_speakers: int, min_windows: int = 2) -> np.ndarray:
    """A cluster of a few stray windows (a cough, a laugh, a word cut in two) is not a person:
    its windows go to the nearest real speaker. Never below min_speakers: when too few clusters
    are big enough, the largest small ones stay speakers."""
    counts = np.bincount(labels)
    by_size = [int(k) for k in np.argsort(-counts, kind="stable") if counts[k] > 0]
    keep = [k for k in by_size if counts[k] >= min_windows]
    keep += [k for k in by_size if k not in keep][: max(0, max(1, min_speakers) - len(keep))]
    if len(keep) == len(by_size):
        return labels
    centres = np.stack([embeddings[labels == k].mean(axis=0) for k in keep])
    moved = labels.copy()
    for i in np.where(~np.isin(labels, keep))[0]:
        moved[i] = keep[int(np.argmax(centres @ embeddings[i]))]
    _, labels = np.unique(moved, return_inverse=True)
    return labels


# --- the pipeline ----------------------------------------------------------------------------


def diarize(request: dict) -> dict:
    started = time.monotonic()
    weights = request.get("weights")
    if not weights:
        raise DiarizeError("not_found", "No speaker-encoder weights configured")
    encoder = Encoder(load_weights(weights))
    min_speakers = int(request.get("min_speakers") or 1)
    max_speakers = request.get("max_speakers")
    max_speakers = int(max_speakers) if max_speakers else None
    step = float(request.get("step") or STEP_SECONDS)
    cpu_started = _cpu_seconds()
    segmentation, segmentation_note = overlap_model(request.get("segmentation"))
    heard = Heard()
    duration, regions, windows, embeddings = embed_file(request["audio"], encoder, step, segmentation=segmentation, heard=heard)
    threshold = float(request.get("threshold") or DEFAULT_THRESHOLD)
    turns = fill_pauses(speaker_turns(embeddings, windows, regions, heard, min_speakers, max_speakers, threshold), heard.likely_speech)
    voices = speaker_embeddings(embeddings, windows, turns)  # from one-speaker turns only
    overlaps = heard.overlaps
    return {
        # In time order; an overlap turn sorts after a one-speaker turn that starts with it.
        "turns": sorted(turns + overlap_turns(turns, overlaps), key=lambda t: t["start"]),
        "speakers": sorted({t["speaker"] for t in turns}, key=lambda s: int(s[1:])),
        "embeddings": voices,
        "stats": {
            "overlap": segmentation_note,
            "overlap_seconds": round(sum(e - s for s, e in overlaps), 3),
            "solo_speakers": heard.solo_speakers,
            "duration": round(duration, 3),
            "speech_seconds": round(sum(r[1] - r[0] for r in regions), 3),
            "windows": len(windows),
            "run_seconds": round(time.monotonic() - started, 3),
            "cpu_seconds": round(_cpu_seconds() - cpu_started, 3),
            "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        },
    }


def speaker_turns(embeddings: np.ndarray, windows: list, regions: list, heard: Heard, min_speakers: int, max_speakers: int | None, threshold: float) -> list:
    """One-speaker turns, with at least as many speakers as segmentation-3.0 hears alone inside
    one chunk (revision 5). Where the clustering finds fewer, forcing it to that count helps only
    if every cluster it then gives is big enough to be a speaker of its own; otherwise its extra
    clusters are stray windows of a louder voice, and the voice the model heard is placed where
    it heard it instead (add_heard_voices, decision 0020, revision 6)."""
    floor = max(min_speakers, min(heard.solo_speakers, max_speakers or heard.solo_speakers))
    turns = to_turns(regions, windows, assign_speakers(embeddings, windows, min_speakers, max_speakers, threshold))
    missing = floor - len({t["speaker"] for t in turns})
    if missing <= 0 or not len(windows):
        return turns
    forced = assign_speakers(embeddings, windows, floor, max_speakers, threshold)
    added = 0
    if np.unique(forced, return_counts=True)[1].min() < min_speaker_windows(len(forced)):
        turns, added = add_heard_voices(turns, heard.voices_together, missing)
    return turns if added == missing else to_turns(regions, windows, forced)


def overlap_model(path: str | None):
    """segmentation-3.0 when its file is there and readable; else None and why (the diarizer
    then gives one speaker at a time, as before: the pass is never a reason to fail)."""
    if not path:
        return None, "off: no segmentation model configured"
    if not os.path.isfile(path):
        return None, f"off: {path} not found"
    import segmentation

    try:
        return segmentation.Segmentation(path), "on"
    except segmentation.SegmentationError as error:
        return None, f"off: {error}"


class Heard:
    """What segmentation-3.0 heard over the file: the stretches where two people talk at once
    and where someone more likely than not talks (seconds), and the voices it heard alone for
    SOLO_SECONDS in each 10 s chunk, from which the count floor and the chunks holding several
    are read."""

    def __init__(self):
        self.overlaps: list = []
        self.likely_speech: list = []
        self.voices_alone: list = []  # segmentation.voices_alone per chunk, in time order

    @property
    def solo_speakers(self) -> int:
        return max((len(voices) for voices in self.voices_alone), default=0)

    @property
    def voices_together(self) -> list:
        return [voices for voices in self.voices_alone if len(voices) >= 2]


def embed_file(
    audio: str,
    encoder: Encoder,
    step: float = STEP_SECONDS,
    vad_threshold: float | None = None,
    segmentation=None,
    heard: Heard | None = None,
):
    """Streams the file once: speech regions as reported in the turns (seconds), the
    embedded windows (start, end) and their embeddings (windows × 256, unit vectors). With a
    segmentation model, what it hears goes into `heard`."""
    regions: list = []  # merged speech regions the windows are cut from, seconds
    turn_regions: list = []  # merged speech regions the turns cover (TURN_* hysteresis)
    windows: list = []  # (start, end) of each embedded window
    vectors: list = []  # its embedding
    pending_mels: list = []
    pending_windows: list = []
    buffer = np.zeros(0, np.float32)
    buffer_start = 0.0
    done_until = 0.0  # regions ending before this have their windows embedded
    duration = 0.0

    def flush():
        if pending_mels:
            vectors.append(encoder(np.stack(pending_mels)))
            windows.extend(pending_windows)
            pending_mels.clear()
            pending_windows.clear()

    def embed_regions(final: bool):
        nonlocal done_until
        horizon = duration if final else duration - 1.0
        for region in regions:
            if region[1] <= done_until:
                continue
            if region[1] > horizon and not final:
                break
            for s in window_starts(region[0], region[1], step):
                a = int(round((s - buffer_start) * SAMPLE_RATE))
                clip = buffer[max(0, a) : a + WINDOW_FRAMES * HOP]
                if len(clip) < WINDOW_FRAMES * HOP:
                    clip = np.pad(clip, (0, WINDOW_FRAMES * HOP - len(clip)))
                pending_mels.append(mel_spectrogram(normalize_volume(clip))[:WINDOW_FRAMES])
                pending_windows.append((s, min(region[1], s + WINDOW_SECONDS)))
                if len(pending_mels) >= BATCH:
                    flush()
            done_until = region[1]

    listening = segmentation is not None and heard is not None
    # The diarizer runs once the transcript is done, so a second core is free: segmentation-3.0
    # (onnxruntime, which lets go of the GIL) hears a block while Silero scores it and the
    # encoder embeds its windows.
    beside = ThreadPoolExecutor(max_workers=1) if listening and (os.cpu_count() or 1) > 1 else None
    try:
        for block in audio_blocks(audio):
            offset = duration
            duration += len(block) / SAMPLE_RATE
            # At the VAD's level: the model's input norm has a variance floor (1e-5) that a
            # recording 40 dB down falls under, and it then hears less.
            hearing = beside.submit(segmentation.chunk_logp, vad_level(block)) if beside else None
            scores = speech_scores(block)
            tight = speech_regions(block, offset, vad_threshold or VAD_THRESHOLD, scores=scores)
            spoken = speech_regions(block, offset, TURN_ONSET, TURN_OFFSET, TURN_MIN_SILENCE_MS, scores=scores)
            for region in tight:
                _append_region(regions, region)
            buffer = np.concatenate([buffer, block])
            embed_regions(final=False)
            # Keep only what an unfinished region still needs.
            keep_from = min([r[0] for r in regions if r[1] > done_until] + [duration - 1.0])
            cut = int(max(0.0, keep_from - buffer_start) * SAMPLE_RATE)
            if cut > 0:
                buffer = buffer[cut:]
                buffer_start += cut / SAMPLE_RATE
            if listening:
                import segmentation as seg

                logp = hearing.result() if hearing else segmentation.chunk_logp(vad_level(block))
                for region in seg.regions(seg.overlap_probability(logp, len(block)), OVERLAP_THRESHOLD, offset):
                    _append_region(heard.overlaps, region)
                heard.voices_alone.extend(seg.voices_alone(logp, SOLO_SECONDS, offset, len(block)))
                speech = seg.speech_probability(logp, len(block))
                for region in seg.regions(speech, PAUSE_SPEECH, offset):
                    _append_region(heard.likely_speech, region)
                spoken = _union(spoken, seg.regions(speech, SURE_SPEECH, offset, 0.2))
            for region in spoken:
                _append_region(turn_regions, region)
    finally:
        if beside:
            beside.shutdown(wait=True)
    embed_regions(final=True)
    flush()
    embeddings = np.concatenate(vectors) if vectors else np.zeros((0, 256), np.float32)
    return duration, turn_regions, windows, embeddings


def _union(a: list, b: list) -> list:
    out: list = []
    for r in sorted([list(x) for x in a + b]):
        if out and r[0] - out[-1][1] < 0.05:
            out[-1][1] = max(out[-1][1], r[1])
        else:
            out.append(r)
    return out


def _append_region(regions: list, region: list) -> None:
    if regions and region[0] - regions[-1][1] < 0.05:
        regions[-1][1] = region[1]  # speech running across the block boundary
    else:
        regions.append(region)


def assign_speakers(
    embeddings: np.ndarray,
    windows: list,
    min_speakers: int,
    max_speakers: int | None,
    threshold: float = DEFAULT_THRESHOLD,
    context: int = CONTEXT_WINDOWS,
    min_share: float = MIN_SPEAKER_SHARE,
) -> np.ndarray:
    """One label per window: context-averaged embeddings, clustered over the whole file,
    then clusters too small to be a speaker joined to their nearest one."""
    if not len(embeddings):
        return np.zeros(0, np.int64)
    smoothed = with_context(embeddings, windows, context)
    labels = cluster(smoothed, threshold, min_speakers, max_speakers)
    return absorb_small(smoothed, labels, min_speakers, min_speaker_windows(len(labels), min_share))


def min_speaker_windows(windows: int, share: float = MIN_SPEAKER_SHARE) -> int:
    """The fewest windows a cluster needs to be a speaker of its own. On a long file the share
    is capped, so a participant with a few minutes of a long meeting still counts."""
    return max(2, min(MAX_MIN_SPEAKER_WINDOWS, int(np.ceil(share * windows))))


def with_context(embeddings: np.ndarray, windows: list, radius: int) -> np.ndarray:
    """A 1.6 s window says little about a far-field voice (same-speaker and other-speaker
    similarities overlap on AMI); the sum with its neighbours in the same stretch of speech
    is a steadier estimate. Neighbours across a pause are never mixed in."""
    if radius <= 0 or len(embeddings) < 2:
        return embeddings
    starts = np.array([s for s, _ in windows])
    ends = np.array([e for _, e in windows])
    joined = starts[1:] <= ends[:-1] + 0.01  # window k+1 continues window k
    out = np.empty_like(embeddings)
    for i in range(len(embeddings)):
        lo = i
        while lo > 0 and i - lo < radius and joined[lo - 1]:
            lo -= 1
        hi = i
        while hi < len(embeddings) - 1 and hi - i < radius and joined[hi]:
            hi += 1
        total = embeddings[lo : hi + 1].sum(axis=0)
        out[i] = total / max(float(np.linalg.norm(total)), 1e-9)
    return out


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def to_turns(regions: list, windows: list, labels: np.ndarray, frame: float = 0.05) -> list:
    """Each 50 ms of speech takes the speaker of the window whose centre is nearest; runs of
    one speaker become turns; ids S1, S2… in order of first appearance."""
    if not len(labels):
        return []
    centres = np.array([(s + e) / 2 for s, e in windows])
    raw = []
    for start, end in regions:
        times = np.arange(start, end, frame)
        if not len(times):
            continue
        idx = np.clip(np.searchsorted(centres, times + frame / 2), 1, len(centres) - 1)
        left = centres[idx - 1]
        right = centres[idx]
        nearest = np.where(np.abs(times + frame / 2 - left) <= np.abs(right - times - frame / 2), idx - 1, idx)
        if len(centres) == 1:
            nearest = np.zeros(len(times), np.int64)
        who = labels[nearest]
        run_start = start
        for k in range(1, len(times) + 1):
            if k == len(times) or who[k] != who[k - 1]:
                run_end = end if k == len(times) else times[k]
                raw.append([run_start, run_end, int(who[k - 1])])
                run_start = run_end
    names: dict = {}
    turns: list = []
    for start, end, label in raw:
        speaker = names.setdefault(label, f"S{len(names) + 1}")
        _join(turns, {"start": round(start, 3), "end": round(end, 3), "speaker": speaker})
    return turns


def add_heard_voices(turns: list, chunks: list, wanted: int) -> tuple:
    """Where segmentation-3.0 hears two people alone inside one chunk but the clustering put
    both under one speaker, the less heard of the two becomes a new speaker where the model
    hears it alone (inside the turns only), up to `wanted` new speakers. Forcing the clustering
    to the model's count instead splits off whichever windows are most apart, usually a stray
    stretch of the main voice (decision 0020, revision 6). Returns the turns, speakers
    renumbered by first appearance, and how many were added."""
    added = 0
    for voices in chunks:
        if added == wanted:
            break
        owners: list = []
        for runs in voices:  # most heard first
            owner = _owner(turns, runs)
            if owner is None:
                continue
            if owner in owners:
                turns = _give(turns, runs, f"new{added}")
                added += 1
                if added == wanted:
                    break
            else:
                owners.append(owner)
    return (_by_first_appearance(turns) if added else turns), added


def _owner(turns: list, runs: list):
    """The speaker whose turns hold the most of these stretches, or None if none does."""
    starts = [t["start"] for t in turns]
    held: dict = {}
    for start, end in runs:
        for t in turns[max(0, bisect.bisect_right(starts, start) - 1) : bisect.bisect_left(starts, end)]:
            shared = min(t["end"], end) - max(t["start"], start)
            if shared > 0:
                held[t["speaker"]] = held.get(t["speaker"], 0.0) + shared
    return max(held, key=held.get) if held else None


def _give(turns: list, runs: list, speaker: str) -> list:
    """The turns with these stretches, where they lie inside a turn, given to `speaker`."""
    out: list = []
    for t in turns:
        cuts = sorted({t["start"], t["end"], *(x for run in runs for x in run if t["start"] < x < t["end"])})
        pieces = [[a, b, speaker if any(start <= (a + b) / 2 < end for start, end in runs) else t["speaker"]] for a, b in zip(cuts, cuts[1:])]
        # What is left of a turn between or beside the voice's stretches, shorter than the
        # shortest speech region (0.2 s), is not a turn of its own.
        for k, piece in enumerate(pieces):
            if len(pieces) > 1 and piece[1] - piece[0] < 0.2:
                piece[2] = pieces[k - 1][2] if k else pieces[1][2]
        for a, b, who in pieces:
            _join(out, {"start": round(a, 3), "end": round(b, 3), "speaker": who})
    return out


def _by_first_appearance(turns: list) -> list:
    names: dict = {}
    return [{**t, "speaker": names.setdefault(t["speaker"], f"S{len(names) + 1}")} for t in turns]


def fill_pauses(turns: list, likely_speech: list) -> list:
    """A pause of at most PAUSE_SECONDS between two turns of the same speaker keeps, as that
    speaker's, the stretches inside it that segmentation-3.0 hears as likely speech; turns then
    less than 0.5 s apart join, as in to_turns. Silero misses quiet syllables and breaths inside
    a turn that human turns keep (decision 0020, revision 6)."""
    if not likely_speech:
        return turns
    ends = [end for _, end in likely_speech]
    out: list = []
    for k, turn in enumerate(turns):
        turn = dict(turn)
        before = turns[k - 1] if k else None
        if before and before["speaker"] == turn["speaker"] and 0 < turn["start"] - before["end"] <= PAUSE_SECONDS:
            for j in range(bisect.bisect_right(ends, before["end"]), len(likely_speech)):
                start, end = likely_speech[j]
                if start >= turn["start"]:
                    break
                start, end = max(start, before["end"]), min(end, turn["start"])
                if end > start:
                    _join(out, {"start": round(start, 3), "end": round(end, 3), "speaker": turn["speaker"]})
        _join(out, turn)
    return out


def _join(turns: list, turn: dict) -> None:
    if turns and turns[-1]["speaker"] == turn["speaker"] and turn["start"] - turns[-1]["end"] < 0.5:
        turns[-1]["end"] = max(turns[-1]["end"], turn["end"])
    else:
        turns.append(turn)


def overlap_turns(turns: list, overlaps: list) -> list:
    """Where two people talk at once, the second is taken to be the speaker of the nearest turn
    of someone else (before or after it): a turn of theirs is added over the overlap. The main
    speaker's turn starts before it (or with it, and sorts first), so a word lying in both
    keeps the main speaker (src/domain/speakers.ts takes the first turn of the largest overlap)."""
    if len({t["speaker"] for t in turns}) < 2:
        return []
    extra = []
    for start, end in overlaps:
        inside: dict = {}
        for t in turns:
            shared = min(t["end"], end) - max(t["start"], start)
            if shared > 0:
                inside[t["speaker"]] = inside.get(t["speaker"], 0.0) + shared
        if not inside:
            continue
        main = max(inside, key=inside.get)
        others = [(max(0.0, t["start"] - end, start - t["end"]), t["speaker"]) for t in turns if t["speaker"] != main]
        extra.append({"start": round(start, 3), "end": round(end, 3), "speaker": min(others)[1]})
    return extra


def speaker_embeddings(embeddings: np.ndarray, windows: list, turns: list) -> dict:
    """Each speaker's voice for the voice library (decision 0031): the unit-norm mean of the
    embeddings of the windows whose centre falls in its turns, after the final labels."""
    if not len(embeddings) or not turns:
        return {}
    starts = np.array([t["start"] for t in turns])
    sums: dict = {}
    for (start, end), vector in zip(windows, embeddings):
        centre = (start + end) / 2
        k = int(np.searchsorted(starts, centre, side="right")) - 1
        if k < 0 or centre > turns[k]["end"]:
            continue
        speaker = turns[k]["speaker"]
        sums[speaker] = sums.get(speaker, 0) + vector.astype(np.float64)
    out = {}
    for speaker, total in sums.items():
        norm = float(np.linalg.norm(total))
        if norm > 0:
            out[speaker] = [round(float(x), 6) for x in total / norm]
    return out


def main() -> None:
    try:
        request = json.loads(sys.argv[1] if len(sys.argv) > 1 else sys.stdin.readline())
        print(json.dumps({"ok": True, "result": diarize(request)}))
    except DiarizeError as error:
        print(json.dumps({"ok": False, "error": {"kind": error.kind, "message": str(error)}}))
    except Exception as error:  # the caller turns this into a readable job error
        import traceback

        sys.stderr.write(traceback.format_exc())
        print(json.dumps({"ok": False, "error": {"kind": "engine", "message": f"{type(error).__name__}: {error}"}}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
