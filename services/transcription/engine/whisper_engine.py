#!/usr/bin/env python3
"""Thin Whisper engine for the transcription worker (faster-whisper / CTranslate2 on the CPU).

The TypeScript worker starts this once and keeps it running. It reads one JSON request
per line on stdin and writes one JSON line per reply on stdout; logs and progress bars go
to stderr. Every rule of the product (chunk planning, seam merging, the repetition
guard, retries, time limits) lives in TypeScript; this file only runs the model.

Requests (each carries an "id" that the replies repeat):
  {"op": "ping"}
  {"op": "load", "model_dir": "/path", "compute_type": "int8", "threads": 2, "device": "cpu" | "cuda"}
  {"op": "device", "device": "cuda", "compute_type": "float16"}   (can this process run there?)
  {"op": "download", "name": "base", "repo": "Systran/faster-whisper-base", "output_dir": "/path"}
  {"op": "transcribe", "model_dir": "/path", "audio": "/path/file", "start": 0.0, "end": 30.0,
   "language": "en" | null, "task": "transcribe" | "translate", "temperature": 0.0,
   "prompt": null, "vocabulary": ["term", ...], "beam_size": 1, "vad": true, "batch_size": 0, "device": "cpu"}
  (batch_size > 0: faster-whisper's BatchedInferencePipeline, VAD-cut segments decoded
  that many at a time; 0: one 30-second window after another.)
Replies:
  {"id": ..., "ok": true, "result": {...}}
  {"id": ..., "ok": false, "error": {"kind": "not_found" | "bad_audio" | "bad_request" | "no_device" | "engine", "message": "..."}}
  {"id": ..., "event": "progress", ...}   (download progress, any number before the reply)
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import time
import traceback

SAMPLE_RATE = 16000


class EngineError(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


_models: dict = {}


def check_device(device: str, compute_type: str) -> dict:
    """Whether CTranslate2 can run on `device` with `compute_type` here; EngineError("no_device") if not."""
    if device == "cpu":
        return {"device": "cpu", "count": 1}
    if device != "cuda":
        raise EngineError("bad_request", f"Unknown device {device!r} (cpu or cuda)")
    try:
        import ctranslate2

        count = ctranslate2.get_cuda_device_count()
    except Exception as error:  # a CTranslate2 build without CUDA, or a broken driver library
        raise EngineError("no_device", f"CTranslate2 cannot use CUDA here: {type(error).__name__}: {error}") from error
    if count < 1:
        raise EngineError(
            "no_device",
            "No CUDA GPU is visible to CTranslate2 (no NVIDIA driver, no device, or CUDA_VISIBLE_DEVICES hides it)",
        )
    try:
        supported = ctranslate2.get_supported_compute_types("cuda")
    except Exception as error:  # libcublas / libcudnn missing or of the wrong major version
        raise EngineError("no_device", f"The CUDA libraries CTranslate2 needs cannot be loaded: {error}") from error
    if compute_type not in supported:
        raise EngineError("no_device", f"The GPU cannot compute in {compute_type} (it supports {', '.join(sorted(supported))})")
    return {"device": "cuda", "count": count, "compute_types": sorted(supported)}


def load_model(model_dir: str, compute_type: str = "int8", threads: int = 0, device: str = "cpu", model_class=None):
    """model_class: a subclass of faster-whisper's WhisperModel (the live engine's), or None for WhisperModel."""
    key = (os.path.realpath(model_dir), compute_type, threads, device, model_class)
    if key in _models:
        return _models[key], 0.0
    if not os.path.isfile(os.path.join(model_dir, "model.bin")):
        raise EngineError("not_found", f"No model.bin in {model_dir}")
    check_device(device, compute_type)
    from faster_whisper import WhisperModel

    started = time.monotonic()
    try:
        model = (model_class or WhisperModel)(model_dir, device=device, compute_type=compute_type, cpu_threads=threads)
    except Exception as error:  # a truncated or foreign file fails here
        raise EngineError("bad_model", f"Cannot load the Whisper model in {model_dir}: {error}") from error
    # One model at a time: a worker switching models should not hold both in memory.
    _models.clear()
    _models[key] = model
    return model, time.monotonic() - started


def read_audio(path: str, start: float, end: float | None):
    """16 kHz mono float32 samples of [start, end) of any file ffmpeg or PyAV can read."""
    import numpy as np

    if not os.path.isfile(path):
        raise EngineError("bad_audio", f"Audio file not found: {path}")
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg:
        command = [ffmpeg, "-nostdin", "-v", "error", "-ss", f"{max(0.0, start):.3f}"]
        if end is not None:
            command += ["-t", f"{max(0.0, end - start):.3f}"]
        command += ["-i", path, "-f", "s16le", "-ac", "1", "-ar", str(SAMPLE_RATE), "-"]
        done = subprocess.run(command, capture_output=True)
        if done.returncode != 0:
            reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise EngineError("bad_audio", f"Cannot decode audio: {reason[-1] if reason else 'ffmpeg failed'}")
        return np.frombuffer(done.stdout, np.int16).astype(np.float32) / 32768.0
    from faster_whisper import decode_audio

    try:
        samples = decode_audio(path, sampling_rate=SAMPLE_RATE)
    except Exception as error:
        raise EngineError("bad_audio", f"Cannot decode audio: {error}") from error
    first = int(max(0.0, start) * SAMPLE_RATE)
    last = None if end is None else int(end * SAMPLE_RATE)
    return samples[first:last]


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def sequential_transcribe(model, samples, request: dict, language, task: str, temperatures):
    return model.transcribe(
        samples,
        **decode_options(request, language, task, temperatures, model.hf_tokenizer),
        vad_filter=bool(request.get("vad", True)),
        # Skips silent stretches where Whisper tends to invent text (sequential decoding only).
        hallucination_silence_threshold=2.0,
    )


# Whisper's decoder context is 448 tokens and at most half of it may be prompt (faster-whisper
# keeps max_length // 2 - 1 of each part). Hotwords and the initial prompt share it here, a
# few tokens short, since the text we hand over is encoded again.
PROMPT_BUDGET = 220
# With terms to fit, the user's own prompt keeps at least this much of the budget.
PROMPT_RESERVE = 100
GLOSSARY_LABEL = "Glossary: "


def vocabulary_prompt(encode, decode, prompt, terms: list) -> tuple:
    """(initial_prompt, hotwords) for a window (decision 0029). The terms, most relevant
    first, go into both: hotwords are offered to every 30-second stretch, the initial prompt
    only to the first stretch of a window (it is not carried on without conditioning on
    previous text), and it also holds the user's prompt. Terms are taken in order while they
    fit, each counted twice; the prompt keeps its end (nearest the speech) in what is left."""
    prompt = (prompt or "").strip()
    prompt_tokens = encode(" " + prompt) if prompt else []
    reserve = min(len(prompt_tokens), PROMPT_RESERVE)
    chosen: list = []
    used = 0
    for term in terms:
        cost = 2 * len(encode(" " + term + ","))
        if used + cost <= PROMPT_BUDGET - reserve - len(encode(GLOSSARY_LABEL)):
            chosen.append(term)
            used += cost
    if not chosen:
        return prompt or None, None
    glossary = ", ".join(chosen) + "."
    # "Glossary:" tells the decoder the list is a list, not the start of the speech: without
    # it base, given the terms twice, began "She opened the window" as "Siobhan, The Window"
    # (docs/benchmarks.md, vocabulary).
    labelled = GLOSSARY_LABEL + glossary
    room = PROMPT_BUDGET - len(encode(" " + glossary)) - len(encode(" " + labelled))
    if len(prompt_tokens) > room:
        prompt = decode(prompt_tokens[-room:]).strip() if room > 0 else ""
    return (prompt + " " + labelled).strip(), glossary


# Whisper's own check: a decode with a lower mean log-probability is tried again hotter.
LOG_PROB_THRESHOLD = -1.0


def decode_options(request: dict, language, task: str, temperatures, tokenizer=None) -> dict:
    """What sequential and batched decoding share. Hallucination and loop guards at the
    source: no conditioning on the previous window's text (the usual cause of runaway
    repetition), Whisper's compression and log-probability fallbacks."""
    terms = [t for t in (request.get("vocabulary") or []) if isinstance(t, str) and t.strip()]
    if terms and tokenizer is not None:
        initial_prompt, hotwords = vocabulary_prompt(
            lambda text: tokenizer.encode(text, add_special_tokens=False).ids, tokenizer.decode, request.get("prompt"), terms
        )
    else:
        initial_prompt, hotwords = request.get("prompt") or None, None
    return dict(
        language=language,
        task=task,
        beam_size=int(request.get("beam_size") or 1),
        temperature=temperatures,
        initial_prompt=initial_prompt,
        hotwords=hotwords,
        word_timestamps=True,
        vad_parameters={"min_silence_duration_ms": 500},
        condition_on_previous_text=False,
        compression_ratio_threshold=2.4,
        log_prob_threshold=LOG_PROB_THRESHOLD,
        no_speech_threshold=NO_SPEECH_THRESHOLD,
        no_repeat_ngram_size=0,
    )


# A prompted decode may leave speech out (decision 0029): given any prompt or hotwords (even
# "Hello."), base skipped the first 13 s of the AMI excerpt ami_trn06, words the plain decode
# has. So after a prompted decode, every stretch of detected speech with no word in it that
# holds at least this much speech is decoded again without the prompt and hotwords.
MISSED_SPEECH_SECONDS = 2.0
# Padding kept around the speech of a missed stretch (within the words' gap) when it is cut out.
MISSED_SPEECH_PAD = 0.2


def speech_regions(samples) -> list:
    """(start, end) seconds of detected speech, with the VAD settings the decode uses."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    found = get_speech_timestamps(samples, VadOptions(min_silence_duration_ms=500, speech_pad_ms=0))
    return [(c["start"] / SAMPLE_RATE, c["end"] / SAMPLE_RATE) for c in found]


def missed_speech(speech: list, words: list, duration: float, minimum: float = MISSED_SPEECH_SECONDS) -> list:
    """Stretches [start, end) between consecutive words (and before the first and after the
    last) that hold at least `minimum` seconds of speech; each is cut to its speech, padded a
    little but never into a word. Pure: `speech` and `words` are (start, end) seconds."""
    spans = sorted(words)
    edges = [0.0] + [x for span in spans for x in span] + [duration]
    out = []
    for gap_start, gap_end in zip(edges[0::2], edges[1::2]):
        inside = [(max(s, gap_start), min(e, gap_end)) for s, e in speech if e > gap_start and s < gap_end]
        if sum(e - s for s, e in inside) >= minimum:
            out.append((max(gap_start, inside[0][0] - MISSED_SPEECH_PAD), min(gap_end, inside[-1][1] + MISSED_SPEECH_PAD)))
    return out


# A prompted decode also adds words no one said, mostly at the end of a window, after the last
# real word (docs/benchmarks.md, vocabulary): "Off." (base, a LibriVox sentence), "Thank you
# very much." (tiny.en, AMI), "I'm sorry." four times (base, AMI). Two marks, either enough:
# Whisper's own checks failed at every fallback temperature (the text is a sample at the last
# one: "Off." had avg_logprob -1.34 at 1.0), or the words are squeezed into less time than
# anyone speaks them (four words in 0.1 s). Such segments are dropped; real speech they held is
# then decoded again without the prompt, like any other speech a prompted decode left without
# words. Real segments with a weak score pass: they decode at a low temperature (ami_dev00's
# whole segment, with the term, at 0.0), which the old rule by faster-whisper's hallucination
# score did not tell apart (decision 0029).
# The shortest time per word a segment of two or more words may take (fast speech is ~0.2 s).
SQUEEZED_WORD_SECONDS = 0.05


# Whisper's no-speech check needs both a likely silence and a weak decode; a prompt props up
# the decode's log-probability ("Thank you." three times after "Front, Right.": no-speech
# 0.86, avg_logprob -0.98; "Here." after "Rear Center.": 0.65 and -0.67), so after a prompt
# the silence alone decides, for a segment too short to hold a sentence: whole windows of
# real meeting speech (AMI ami_trn03, ami_trn09) and tiny.en's "Five, five." (1.2 s) also
# came at over 0.6.
NO_SPEECH_THRESHOLD = 0.6
SILENCE_SEGMENT_SECONDS = 0.5


def invented(segment: dict, last_temperature: float) -> bool:
    """Whether a prompted decode's segment holds words no one said (see above). Pure:
    `segment` has temperature, avg_logprob, no_speech_prob and words [{start, end}]."""
    words = segment.get("words") or []
    if segment["temperature"] >= last_temperature and segment["avg_logprob"] < LOG_PROB_THRESHOLD:
        return True
    if words and segment.get("no_speech_prob", 0.0) > NO_SPEECH_THRESHOLD and words[-1]["end"] - words[0]["start"] < SILENCE_SEGMENT_SECONDS:
        return True
    return len(words) >= 2 and (words[-1]["end"] - words[0]["start"]) / len(words) < SQUEEZED_WORD_SECONDS


def drop_invented(segments: list, last_temperature: float) -> list:
    kept = []
    for segment in segments:
        view = {
            "temperature": segment.temperature,
            "avg_logprob": segment.avg_logprob,
            "no_speech_prob": segment.no_speech_prob,
            "words": [{"start": w.start, "end": w.end} for w in (segment.words or [])],
        }
        if invented(view, last_temperature):
            log(f"prompt: dropped {segment.start:.2f}-{segment.end:.2f} s {segment.text.strip()!r} (words no one said)")
        else:
            kept.append(segment)
    return kept


# A term can also be written over other speech: with tiny.en, "Okay, does anyone want" on
# ami_trn00 came out "Ok, Zanzibar wants" (a glossary term never said), and a synthesized
# sentence got "Okonkwo, Kubernetes," after its end. The decoder itself gave "Zanzibar" and
# "Okonkwo" a probability under 0.005; a term said gets more on at least one of its words
# ("Real Reaction" on ami_dev00: 0.02 and 0.86; "Kubernetes" said, base: 0.042, so 0.05 was
# too high). A segment holding a term none of whose words reach this probability is decoded
# again without the prompt (decision 0038).
TERM_MIN_PROBABILITY = 0.01


def _plain(word: str) -> str:
    return "".join(c for c in word.lower() if c.isalnum())


def forced_terms(words: list, terms: list) -> list:
    """The terms found in `words` ({word, probability}) none of whose words reach
    TERM_MIN_PROBABILITY. Pure; matching ignores case and punctuation, word by word."""
    plain = [_plain(w["word"]) for w in words]
    found = []
    for term in terms:
        parts = [p for p in (_plain(x) for x in term.split()) if p]
        if not parts:
            continue
        for i in range(len(plain) - len(parts) + 1):
            if plain[i : i + len(parts)] == parts and max(w["probability"] for w in words[i : i + len(parts)]) < TERM_MIN_PROBABILITY:
                found.append(term)
                break
    return found


def undo_forced_terms(model, samples, segments: list, terms: list, request: dict, language, task: str, temperatures) -> list:
    """`segments` with each segment that holds a forced term (see above) replaced by a plain
    decode (no prompt, no hotwords) of its stretch."""
    import dataclasses

    plain = {**request, "prompt": None, "vocabulary": []}
    out = []
    for index, segment in enumerate(segments):
        forced = forced_terms([{"word": w.word, "probability": w.probability} for w in (segment.words or [])], terms)
        if not forced:
            out.append(segment)
            continue
        # Padded, but never into the neighbours' words (that would decode them twice).
        before = max([0.0] + [w.end for s in out for w in (s.words or [])])
        after = min([len(samples) / SAMPLE_RATE] + [w.start for s in segments[index + 1 :] for w in (s.words or [])])
        first = max(before, segment.start - MISSED_SPEECH_PAD)
        last = min(after, segment.end + MISSED_SPEECH_PAD)
        if last - first < 0.05:
            log(f"prompt: dropped {segment.start:.2f}-{segment.end:.2f} s (forced {', '.join(forced)}, no room to decode again)")
            continue
        found, _ = sequential_transcribe(model, samples[int(first * SAMPLE_RATE) : int(last * SAMPLE_RATE)], plain, language, task, temperatures)
        for again in found:
            shifted = [dataclasses.replace(w, start=w.start + first, end=w.end + first) for w in (again.words or [])]
            out.append(dataclasses.replace(again, start=again.start + first, end=again.end + first, words=shifted))
        log(f"prompt: decoded {first:.2f}-{last:.2f} s again without it (forced {', '.join(forced)})")
    return out


def recover_missed_speech(model, samples, segments: list, request: dict, language, task: str, temperatures) -> list:
    """`segments` plus a plain decode (no prompt, no hotwords) of each stretch of speech the
    prompted decode left without words; in time order."""
    import dataclasses

    words = [(w.start, w.end) for s in segments for w in (s.words or [])]
    gaps = missed_speech(speech_regions(samples), words, len(samples) / SAMPLE_RATE)
    plain = {**request, "prompt": None, "vocabulary": []}
    for gap_start, gap_end in gaps:
        piece = samples[int(gap_start * SAMPLE_RATE) : int(gap_end * SAMPLE_RATE)]
        found, _ = sequential_transcribe(model, piece, plain, language, task, temperatures)
        for segment in found:
            shifted = [dataclasses.replace(w, start=w.start + gap_start, end=w.end + gap_start) for w in (segment.words or [])]
            segments.append(dataclasses.replace(segment, start=segment.start + gap_start, end=segment.end + gap_start, words=shifted))
        log(f"prompt: decoded {gap_start:.2f}-{gap_end:.2f} s again without it (speech with no words)")
    return sorted(segments, key=lambda s: s.start)


_batched: dict = {}


def batched_transcribe(model, samples, request: dict, language, task: str, temperatures, batch_size: int):
    """VAD cuts the audio into speech stretches of at most 30 s; those are decoded
    `batch_size` at a time. Each stretch is decoded on its own, never conditioned on the
    one before (so no runaway repetition across them); the TypeScript guard still checks
    every segment."""
    from faster_whisper import BatchedInferencePipeline

    pipeline = _batched.get(id(model))
    if pipeline is None:
        _batched.clear()
        pipeline = _batched[id(model)] = BatchedInferencePipeline(model)
    return pipeline.transcribe(
        samples,
        **decode_options(request, language, task, temperatures, model.hf_tokenizer),
        # Without VAD the pipeline has nothing to cut by: it always uses it.
        vad_filter=True,
        batch_size=batch_size,
    )


def transcribe(request: dict) -> dict:
    cpu_started = cpu_seconds()
    compute_type = request.get("compute_type") or "int8"
    threads = int(request.get("threads") or 0)
    device = request.get("device") or "cpu"
    model, load_seconds = load_model(request["model_dir"], compute_type, threads, device)
    batch_size = int(request.get("batch_size") or 0)
    start = float(request.get("start") or 0.0)
    end = request.get("end")
    end = None if end is None else float(end)
    samples = read_audio(request["audio"], start, end)
    clip_seconds = len(samples) / SAMPLE_RATE
    task = request.get("task") or "transcribe"
    if task not in ("transcribe", "translate"):
        raise EngineError("bad_request", f"Unknown task {task}")
    language = request.get("language") or None
    if language and not model.model.is_multilingual and language != "en":
        raise EngineError("bad_request", f"This model only understands English, not '{language}'")
    if task == "translate" and not model.model.is_multilingual:
        raise EngineError("bad_request", "This model is English-only and cannot translate")

    started = time.monotonic()
    if clip_seconds < 0.05:
        return {
            "language": language or "en",
            "language_probability": 0.0,
            "duration": clip_seconds,
            "segments": [],
            "load_seconds": load_seconds,
            "run_seconds": 0.0,
        }
    if request.get("seed") is not None:
        # Temperature fallback samples; a fixed seed makes a window's transcript repeatable.
        import ctranslate2

        ctranslate2.set_random_seed(int(request["seed"]))
    temperature = float(request.get("temperature") or 0.0)
    # Fallback to higher temperatures only above the requested one (Whisper's own scheme).
    temperatures = [t for t in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0) if t >= temperature] or [temperature]
    if batch_size > 0:
        segments, info = batched_transcribe(model, samples, request, language, task, temperatures, batch_size)
    else:
        segments, info = sequential_transcribe(model, samples, request, language, task, temperatures)
    conditioned = decode_options(request, language, task, temperatures, model.hf_tokenizer)
    if conditioned["initial_prompt"] or conditioned["hotwords"]:
        # Only sequential decoding falls back to hotter temperatures (the batched pipeline
        # keeps its first), so only there does a segment at the last one mean all failed.
        fell_back = batch_size == 0 and len(temperatures) > 1
        segments = drop_invented(list(segments), temperatures[-1] if fell_back else float("inf"))
        terms = [t for t in (request.get("vocabulary") or []) if isinstance(t, str) and t.strip()]
        segments = undo_forced_terms(model, samples, segments, terms, request, language, task, temperatures)
        segments = recover_missed_speech(model, samples, segments, request, language, task, temperatures)
    out = []
    for segment in segments:
        out.append(
            {
                "start": round(start + segment.start, 3),
                "end": round(start + segment.end, 3),
                "text": segment.text,
                "avg_logprob": segment.avg_logprob,
                "compression_ratio": segment.compression_ratio,
                "no_speech_prob": segment.no_speech_prob,
                "temperature": segment.temperature,
                "words": [
                    {
                        "word": w.word,
                        "start": round(start + w.start, 3),
                        "end": round(start + w.end, 3),
                        "probability": round(w.probability, 4),
                    }
                    for w in (segment.words or [])
                ],
            }
        )
    return {
        "language": info.language,
        "language_probability": info.language_probability,
        "duration": clip_seconds,
        "segments": out,
        "load_seconds": load_seconds,
        "run_seconds": time.monotonic() - started,
        "cpu_seconds": cpu_seconds() - cpu_started,
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download(request: dict, reply_id) -> dict:
    """Downloads a faster-whisper model from the Hugging Face Hub with a progress bar
    (stderr) and verifies every LFS file's sha256 against the hub's metadata."""
    repo = request["repo"]
    output_dir = request["output_dir"]
    try:
        from huggingface_hub import HfApi, snapshot_download
    except ImportError as error:
        raise EngineError("engine", f"huggingface_hub is not installed: {error}") from error
    partial = output_dir + ".partial"
    os.makedirs(partial, exist_ok=True)
    send({"id": reply_id, "event": "progress", "message": f"downloading {repo} into {output_dir}"})
    patterns = ["config.json", "preprocessor_config.json", "model.bin", "tokenizer.json", "vocabulary.*"]
    try:
        info = HfApi().model_info(repo, files_metadata=True)
        import fnmatch

        wanted = [s for s in info.siblings or [] if any(fnmatch.fnmatch(s.rfilename, p) for p in patterns)]
        send({"id": reply_id, "event": "progress", "total_bytes": sum(getattr(s, "size", 0) or 0 for s in wanted)})
        snapshot_download(repo, local_dir=partial, allow_patterns=patterns)
    except Exception as error:
        shutil.rmtree(partial, ignore_errors=True)
        raise EngineError(
            "not_found",
            f"Download of {repo} from the Hugging Face Hub failed ({type(error).__name__}: {error})",
        ) from error
    for sibling in info.siblings or []:
        lfs = getattr(sibling, "lfs", None)
        path = os.path.join(partial, sibling.rfilename)
        if lfs is None or not os.path.isfile(path):
            continue
        expected = lfs.sha256 if hasattr(lfs, "sha256") else lfs["sha256"]
        actual = sha256_of(path)
        if actual != expected:
            shutil.rmtree(partial, ignore_errors=True)
            raise EngineError("bad_model", f"Checksum mismatch for {sibling.rfilename}: {actual} != {expected}")
        send({"id": reply_id, "event": "progress", "message": f"sha256 ok: {sibling.rfilename}"})
    # huggingface_hub's bookkeeping of the download (.cache/huggingface): not part of the model.
    shutil.rmtree(os.path.join(partial, ".cache"), ignore_errors=True)
    if os.path.exists(output_dir):
        shutil.rmtree(output_dir)
    os.rename(partial, output_dir)
    return {"model_dir": output_dir}


def handle(request: dict):
    op = request.get("op")
    if op == "ping":
        import ctranslate2
        import faster_whisper

        return {"faster_whisper": faster_whisper.__version__, "ctranslate2": ctranslate2.__version__, "pid": os.getpid()}
    if op == "load":
        model, seconds = load_model(
            request["model_dir"], request.get("compute_type") or "int8", int(request.get("threads") or 0), request.get("device") or "cpu"
        )
        return {"load_seconds": seconds, "multilingual": model.model.is_multilingual}
    if op == "device":
        return check_device(request.get("device") or "cpu", request.get("compute_type") or "float16")
    if op == "transcribe":
        return transcribe(request)
    if op == "download":
        return download(request, request.get("id"))
    raise EngineError("bad_request", f"Unknown op {op!r}")


def exit_with_parent() -> None:
    """A worker killed with SIGKILL cannot stop us; stop on our own when it is gone."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(1)

    threading.Thread(target=watch, daemon=True).start()


def main() -> None:
    exit_with_parent()
    log(f"whisper engine ready (pid {os.getpid()})")
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request_id = None
        try:
            request = json.loads(line)
            request_id = request.get("id")
            send({"id": request_id, "ok": True, "result": handle(request)})
        except EngineError as error:
            send({"id": request_id, "ok": False, "error": {"kind": error.kind, "message": str(error)}})
        except Exception as error:  # keep serving; the caller decides whether to retry
            log(traceback.format_exc())
            send({"id": request_id, "ok": False, "error": {"kind": "engine", "message": f"{type(error).__name__}: {error}"}})


if __name__ == "__main__":
    main()
