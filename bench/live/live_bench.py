#!/usr/bin/env python3
"""Live transcription benchmark (decision 0030): the streaming engine fed at real time.

Each session is the product's live engine process (services/transcription/engine/
live_engine.py, the same JSON protocol the live worker speaks), fed 100 ms frames of
16 kHz PCM on the wall clock, as a microphone would. Measured per session:

- settle latency: when a word's settled text arrives, minus the word's end in the audio
  (audio time is wall time since the feed started, since it is fed at real time);
- partial latency: when the word (same text, start within 0.5 s) first appears at all,
  partial or settled, minus its end;
- the settled text's WER against the batch transcript of the same file with the same
  model (faster-whisper over the whole file, the product's decode options, beam 5);
- with --references (a Sphinx transcription file, `<s> words </s> (file-id)`), for the files
  it names: the WER of the settled live text and of the batch transcript against the human
  reference, and their difference (the target: live ≤ batch + 3 points); --reference-speech
  scores each clip of real read speech as a session of its own (each ends with a stop, whose
  last decode settles the rest), --reference-stream the same clips as one session;
- at N concurrent sessions on the same cores: the same latencies, and the time from the
  end of the audio to the last settled word.

The gRPC hop and the WebSocket add a loopback round trip each (well under 10 ms); they are
not in these figures.

    python live_bench.py --model-dir ~/.cache/transcribe/models/base --threads 2 \
        --files a.wav b.wav --concurrency 1 2 3 --out ../results/live.json
    python live_bench.py --model-dir … --reference-speech --concurrency 1
    python live_bench.py --model-dir … --reference-stream .data/bench/live --concurrency 1
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import threading
import time
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE = os.path.join(HERE, "..", "..", "services", "transcription", "engine", "live_engine.py")
FRAME = 3200  # 100 ms of 16 kHz s16le
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from references import SPEECH_REFS, fetch_reference_speech, read_sphinx_transcription, sphinx_data  # noqa: E402
from wer import edit_distance, wer, words  # noqa: E402


def key(word: str) -> str:
    """A word as matched between partial and settled text: its normalised spelling."""
    return " ".join(words(word))


def pcm_of(path: str) -> bytes:
    with wave.open(path, "rb") as w:
        assert w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2, f"{path}: need 16 kHz mono s16"
        return w.readframes(w.getnframes())


def percentile(values: list, p: float):
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(round(p / 100 * (len(ordered) - 1)))))
    return ordered[index]


class Session:
    def __init__(self, python: str, model_dir: str, threads: int, language: str):
        self.proc = subprocess.Popen([python, "-u", ENGINE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.write({"op": "start", "model_dir": model_dir, "language": language, "threads": threads})
        ready = json.loads(self.proc.stdout.readline())
        assert ready.get("event") == "ready", ready
        self.events = []

    def write(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def run(self, pcm: bytes, t0: float) -> None:
        def feed():
            for at in range(0, len(pcm), FRAME):
                self.write({"op": "audio", "pcm": base64.b64encode(pcm[at : at + FRAME]).decode()})
                time.sleep(max(0.0, t0 + (at + FRAME) / 32000 - time.monotonic()))
            self.write({"op": "stop"})

        feeder = threading.Thread(target=feed)
        feeder.start()
        for line in self.proc.stdout:
            event = json.loads(line)
            self.events.append((time.monotonic() - t0, event))
            if event.get("event") in ("stopped", "error"):
                break
        feeder.join()
        # CPU time of the session's engine (load-independent: the machine is shared).
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        self.cpu_seconds = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        self.proc.stdin.close()
        self.proc.wait()

    def measure(self, audio_seconds: float) -> dict:
        settled, first_seen, settle_lat, partial_lat = [], [], [], []
        for at, event in self.events:
            if event.get("event") != "words":
                continue
            for w in event["settled"] + event["partial"]:
                if not any(key(s["word"]) == key(w["word"]) and abs(s["start"] - w["start"]) < 0.5 for _, s in first_seen):
                    first_seen.append((at, w))
            for w in event["settled"]:
                settled.append(w)
                settle_lat.append(at - w["end"])
                seen = next((t for t, s in first_seen if key(s["word"]) == key(w["word"]) and abs(s["start"] - w["start"]) < 0.5), at)
                partial_lat.append(seen - w["end"])
        decodes = [e for _, e in self.events if e.get("event") == "words" and e.get("buffer_seconds", 0) > 0]
        last = max((at for at, e in self.events if e.get("event") == "words" and e["settled"]), default=audio_seconds)
        return {
            "text": "".join(w["word"] for w in settled).strip(),
            "settle": settle_lat,
            "partial": partial_lat,
            "tail_seconds": max(0.0, last - audio_seconds),
            "cpu_per_audio_second": round(self.cpu_seconds / audio_seconds, 3),
            "decodes": len(decodes),
            "decode_wall_p50": percentile([e["decode_seconds"] for e in decodes], 50),
            "decode_cpu_p50": percentile([e["decode_cpu_seconds"] for e in decodes], 50),
            "buffer_p50": percentile([e["buffer_seconds"] for e in decodes], 50),
        }


def batch_text(python_model_dir: str, path: str, threads: int, language: str) -> str:
    sys.path.insert(0, os.path.dirname(ENGINE))
    from whisper_engine import decode_options  # noqa: E402
    from faster_whisper import WhisperModel

    model = WhisperModel(python_model_dir, device="cpu", compute_type="int8", cpu_threads=threads)
    segments, _ = model.transcribe(
        path,
        **decode_options({"beam_size": 5}, language, "transcribe", [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        vad_filter=True,
        hallucination_silence_threshold=2.0,
    )
    return "".join(s.text for s in segments).strip()


def reference_stream(clips: list, folder: str) -> str:
    """The clips one after another with 0.3 s of silence between them, as one WAV, and its
    reference as a Sphinx transcription file beside it; returns the WAV's path."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "reference-stream.wav")
    gap = bytes(int(0.3 * 16000) * 2)
    with wave.open(path, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        for clip, _ in clips:
            out.writeframes(pcm_of(clip) + gap)
    with open(os.path.join(folder, "reference-stream.transcription"), "w") as f:
        f.write("<s> " + " ".join(text for _, text in clips) + " </s> (reference-stream)\n")
    return path


def loadavg() -> list:
    return [round(x, 2) for x in os.getloadavg()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--language", default="en")
    parser.add_argument("--files", nargs="+", default=[])
    parser.add_argument("--concurrency", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--references", nargs="+", default=[], help="Sphinx transcription files with human references for some of --files")
    parser.add_argument("--reference-speech", action="store_true", help="also the real read speech with human references of bench/lib/references.py (fetched once)")
    parser.add_argument("--reference-stream", metavar="DIR", help="also those clips as one session: joined with 0.3 s of silence (under the engine's pause) into DIR/reference-stream.wav, so the streaming rules run as in a long talk, not one short clip each")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.reference_speech or args.reference_stream:
        fetch_reference_speech(SPEECH_REFS)
        clips = []
        for folder, transcription in (("librivox", "transcription"), ("cards", "cards.transcription")):
            found = read_sphinx_transcription(os.path.join(sphinx_data(), folder, transcription))
            clips += [(os.path.join(sphinx_data(), folder, fileid + ".wav"), text) for fileid, text in found.items()]
            if args.reference_speech:
                args.references.append(os.path.join(sphinx_data(), folder, transcription))
        if args.reference_speech:
            args.files += [path for path, _ in clips]
        if args.reference_stream:
            args.files.append(reference_stream(clips, args.reference_stream))
            args.references.append(os.path.join(args.reference_stream, "reference-stream.transcription"))
    if not args.files:
        parser.error("give --files, --reference-speech, --reference-stream or several")
    references = {k: v for path in args.references for k, v in read_sphinx_transcription(path).items()}
    pooled = {"reference_words": 0, "live_errors": 0, "batch_errors": 0}

    result = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cores": os.cpu_count(), "load_before": loadavg(), "model": os.path.basename(args.model_dir.rstrip("/")), "files": {}, "concurrency": [],
              # The engine's policy settings this run used (live_engine.py's defaults where unset).
              "engine_env": {k: v for k, v in sorted(os.environ.items()) if k.startswith("LIVE_")}}
    settle_all, partial_all = [], []
    for path in args.files:
        pcm = pcm_of(path)
        seconds = len(pcm) / 32000
        session = Session(args.python, args.model_dir, args.threads, args.language)
        t0 = time.monotonic()
        session.run(pcm, t0)
        m = session.measure(seconds)
        batch = batch_text(args.model_dir, path, args.threads, args.language)
        row = {
            "seconds": round(seconds, 1),
            "settled_words": len(m["settle"]),
            "settle_p50": percentile(m["settle"], 50),
            "settle_p95": percentile(m["settle"], 95),
            "partial_p50": percentile(m["partial"], 50),
            "tail_seconds": round(m["tail_seconds"], 2),
            "cpu_per_audio_second": m["cpu_per_audio_second"],
            "decodes": m["decodes"],
            "decode_wall_p50": m["decode_wall_p50"],
            "decode_cpu_p50": m["decode_cpu_p50"],
            "buffer_p50": m["buffer_p50"],
            "wer_vs_batch": round(wer(batch, m["text"]), 3),
            "live_text": m["text"],
            "batch_text": batch,
            "load": loadavg(),
        }
        reference = references.get(os.path.splitext(os.path.basename(path))[0])
        if reference is not None:
            said = words(reference)
            live_errors, batch_errors = edit_distance(said, words(m["text"])), edit_distance(said, words(batch))
            row.update(reference=reference, wer_live=round(live_errors / len(said), 3), wer_batch=round(batch_errors / len(said), 3))
            pooled["reference_words"] += len(said)
            pooled["live_errors"] += live_errors
            pooled["batch_errors"] += batch_errors
        result["files"][os.path.basename(path)] = row
        settle_all += m["settle"]
        partial_all += m["partial"]
        against = f", vs reference: live {row['wer_live']:.1%}, batch {row['wer_batch']:.1%}" if "wer_live" in row else ""
        print(f"{os.path.basename(path)}: {seconds:.0f} s, settle p50 {row['settle_p50']:.2f} p95 {row['settle_p95']:.2f}, partial p50 {row['partial_p50']:.2f}, WER vs batch {row['wer_vs_batch']:.1%}{against}, CPU s per audio s {row['cpu_per_audio_second']}, {row['decodes']} decodes: wall p50 {row['decode_wall_p50']} s, CPU p50 {row['decode_cpu_p50']} s over {row['buffer_p50']} s of buffer, load {row['load']}", flush=True)
    if pooled["reference_words"]:
        # Pooled over the files with a reference: all errors over all reference words.
        n = pooled["reference_words"]
        result["reference_wer"] = {"words": n, "live": round(pooled["live_errors"] / n, 4), "batch": round(pooled["batch_errors"] / n, 4),
                                   "points_over_batch": round(100 * (pooled["live_errors"] - pooled["batch_errors"]) / n, 2)}
        print(f"against the human references ({n} words): live {result['reference_wer']['live']:.1%}, batch {result['reference_wer']['batch']:.1%}, "
              f"live − batch {result['reference_wer']['points_over_batch']:+.2f} points", flush=True)
    result["settle_p50"] = percentile(settle_all, 50)
    result["settle_p95"] = percentile(settle_all, 95)
    result["partial_p50"] = percentile(partial_all, 50)

    pcm = pcm_of(args.files[0])
    seconds = len(pcm) / 32000
    for n in args.concurrency:
        sessions = [Session(args.python, args.model_dir, max(1, args.threads // n), args.language) for _ in range(n)]
        t0 = time.monotonic()
        threads = [threading.Thread(target=s.run, args=(pcm, t0)) for s in sessions]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        measured = [s.measure(seconds) for s in sessions]
        settle = [x for m in measured for x in m["settle"]]
        row = {
            "sessions": n,
            "settle_p50": percentile(settle, 50),
            "settle_p95": percentile(settle, 95),
            "tail_max": round(max(m["tail_seconds"] for m in measured), 2),
            "cpu_per_audio_second": round(sum(m["cpu_per_audio_second"] for m in measured), 3),
            "load": loadavg(),
        }
        result["concurrency"].append(row)
        print(f"{n} concurrent: settle p50 {row['settle_p50']}, p95 {row['settle_p95']}, last word {row['tail_max']} s after the audio ended, load {row['load']}", flush=True)
    result["load_after"] = loadavg()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
