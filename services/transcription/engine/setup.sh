#!/usr/bin/env bash
# Creates the Python environment of the local Whisper engine (faster-whisper on
# CTranslate2) and prints the interpreter to set as WHISPER_PYTHON:
#
#   services/transcription/engine/setup.sh      → $HOME/.cache/transcribe/engine-venv/bin/python
#
# Versions are pinned in requirements.txt (wheels from PyPI: ctranslate2, av, onnxruntime, …).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${WHISPER_VENV:-$HOME/.cache/transcribe/engine-venv}"
python="${PYTHON:-python3}"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "$venv/bin/python"
  exit 0
fi
if ! "$python" -m venv "$venv" >&2; then
  echo "engine setup: '$python -m venv' failed; on Debian install python3-venv (apt-get install python3-venv)" >&2
  exit 1
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2
"$venv/bin/python" -c 'import faster_whisper, ctranslate2; print("engine setup: faster-whisper", faster_whisper.__version__, "ctranslate2", ctranslate2.__version__)' >&2
echo "$want" >"$stamp"
echo "$venv/bin/python"
