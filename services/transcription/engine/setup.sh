#!/usr/bin/env bash
# Creates (or reuses) the Python environment of the local Whisper engine and prints the
# interpreter to set as WHISPER_PYTHON:
#
#   services/transcription/engine/setup.sh      → $HOME/.cache/transcribe/engine-venv/bin/python
#
# A thin wrapper: the work is done by services/transcription/src/provision (the code
# `npm start` runs on first start). WHISPER_VENV moves the venv, PYTHON picks the Python.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
exec node --import tsx services/transcription/src/provision/cli.ts engine
