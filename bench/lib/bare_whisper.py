#!/usr/bin/env python3
"""The speech engine on its own: faster-whisper's WhisperModel called directly, no product.

The baseline of the pipeline-overhead benchmark and the subject of the engine-speed one.
It loads one model, then answers one JSON request per stdin line with one JSON line:

    {"op": "transcribe", "audio": "/path/16k.wav", "language": "en"}
    -> {"ok": true, "seconds": 8.1, "cpu_seconds": 15.2, "max_rss_mb": 310, "text": "...", "audio_seconds": 120.0}

The first line it writes reports the start: {"ok": true, "import_seconds": 1.2, "load_seconds": 0.6, "max_rss_mb": 250}
(importing faster-whisper and CTranslate2, then reading the weights).

The decode options are those of the product's engine (services/transcription/engine/
whisper_engine.py: beam, word timestamps, VAD, the hallucination guards), so that the
benchmark compares the same decoding work with and without the product around it.
The audio is handed to faster-whisper as a path: it decodes the WAV itself.

    python bare_whisper.py --model-dir DIR --threads 2 [--compute-type int8] [--beam-size 5]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reply(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--compute-type", default="int8")
    parser.add_argument("--beam-size", type=int, default=5)
    args = parser.parse_args()

    started = time.monotonic()
    from faster_whisper import WhisperModel

    imported = time.monotonic()
    model = WhisperModel(args.model_dir, device="cpu", compute_type=args.compute_type, cpu_threads=args.threads)
    reply({
        "ok": True,
        "import_seconds": imported - started,
        "load_seconds": time.monotonic() - imported,
        "max_rss_mb": max_rss_mb(),
    })

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        cpu_started = cpu_seconds()
        started = time.monotonic()
        segments, info = model.transcribe(
            request["audio"],
            language=request.get("language"),
            task="transcribe",
            beam_size=args.beam_size,
            temperature=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
            word_timestamps=True,
            vad_filter=True,
            vad_parameters={"min_silence_duration_ms": 500},
            condition_on_previous_text=False,
            compression_ratio_threshold=2.4,
            log_prob_threshold=-1.0,
            no_speech_threshold=0.6,
            hallucination_silence_threshold=2.0,
        )
        # Segments are generated lazily: the work happens while they are read.
        text = " ".join(segment.text.strip() for segment in segments)
        reply({
            "ok": True,
            "seconds": time.monotonic() - started,
            "cpu_seconds": cpu_seconds() - cpu_started,
            "max_rss_mb": max_rss_mb(),
            "audio_seconds": info.duration,
            "language": info.language,
            "text": text,
        })


if __name__ == "__main__":
    main()
