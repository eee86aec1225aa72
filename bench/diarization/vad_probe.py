#!/usr/bin/env python3
"""Why an excerpt loses its speech (decision 0020): Silero's score second by second, next to the
reference, as the diarizer computes it (the block brought to the VAD's peak) and with Silero's
state started afresh at chosen seconds (its recurrent state carries across the block).

  <engine-venv>/bin/python bench/diarization/vad_probe.py ami_trn07 [--restart 14,22] [--data <dir>]

One line per variant: a digit per second, the highest score in that second ×10 (9 ≥ 0.9); the
first line is how many reference speakers talk in each second.
"""
from __future__ import annotations

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "services", "transcription", "engine"))
import diarizer  # noqa: E402

FRAME = 512  # Silero's window at 16 kHz, 32 ms


def scores(model, audio: np.ndarray) -> np.ndarray:
    return np.asarray(model(np.pad(audio, (0, FRAME - len(audio) % FRAME)))).reshape(-1)


def per_second(values: np.ndarray, seconds: int, first: int = 0) -> str:
    per = FRAME / diarizer.SAMPLE_RATE
    return "".join(
        " " if s < first else str(min(9, int(10 * values[int((s - first) / per) : int((s - first + 1) / per)].max(initial=0.0))))
        for s in range(seconds)
    )


def main() -> None:
    import faster_whisper.vad as fv

    args = sys.argv[1:]
    data = args[args.index("--data") + 1] if "--data" in args else "/work/shared/data/diarization"
    restarts = [int(x) for x in args[args.index("--restart") + 1].split(",")] if "--restart" in args else []
    names = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in ("--data", "--restart"))]
    model = fv.get_vad_model()
    for name in names:
        wav = os.path.join(data, name + ".wav")
        audio = np.concatenate(list(diarizer.audio_blocks(wav)))
        seconds = int(np.ceil(len(audio) / diarizer.SAMPLE_RATE))
        reference = [line.split() for line in open(wav[:-4] + ".rttm") if line.startswith("SPEAKER")]
        talking = "".join(
            str(sum(1 for r in reference if float(r[3]) < s + 1 and float(r[3]) + float(r[4]) > s)) for s in range(seconds)
        )
        level = diarizer.vad_level(audio)
        print(f"{name} reference speakers  {talking}")
        print(f"{name} Silero, as diarized  {per_second(scores(model, level), seconds)}")
        for start in restarts:
            tail = level[start * diarizer.SAMPLE_RATE :]
            print(f"{name} fresh state at {start:3d} s {per_second(scores(model, tail), seconds, start)}")


if __name__ == "__main__":
    main()
