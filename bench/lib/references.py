"""Real recorded speech with human transcripts, from registry packages (pinned versions), for the
benchmarks that score words (bench/vocabulary, bench/live): fetched once into SPEECH_REFS_DIR
(default ~/.cache/transcribe/speech-refs). Sphinx's references are one utterance a line,
`<s> words </s> (file-id)`."""
from __future__ import annotations

import os
import re
import subprocess

SPEECH_REFS = os.environ.get("SPEECH_REFS_DIR", os.path.expanduser("~/.cache/transcribe/speech-refs"))

# Real recorded speech with human transcripts, from registry packages (pinned versions).
DEBIAN_PACKAGE = ("pocketsphinx-testdata", "0.8+5prealpha+1-15")
NPM_PACKAGE = ("nodejs-whisper", "0.3.1", "package/cpp/whisper.cpp/bindings/go/samples/jfk.wav")
# ALSA's speaker-test voice prompts, a person saying each channel's name ("Front Left"), and
# Noise.wav, which has no speech at all (any word in its transcript is an insertion).
ALSA_PACKAGE = ("alsa-utils", "1.2.8-1")
ALSA_SOUNDS = ("Front_Center", "Front_Left", "Front_Right", "Rear_Center", "Rear_Left", "Rear_Right", "Side_Left", "Side_Right", "Noise")
# whisper.cpp's README and tests give this as the sample's text.
JFK = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."


def fetch_reference_speech(root: str) -> None:
    """Debian's and npm's packages into `root`, unpacked (once; the clients check the
    archives' signatures and integrity)."""
    name, version = DEBIAN_PACKAGE
    if not os.path.isdir(sphinx_data(root)):
        os.makedirs(root, exist_ok=True)
        if subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=root).returncode != 0:
            # A fresh machine has no package lists yet.
            subprocess.run(["apt-get", "update"], check=True)
            subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=root, check=True)
        deb = next(f for f in os.listdir(root) if f.startswith(name) and f.endswith(".deb"))
        subprocess.run(["dpkg-deb", "-x", os.path.join(root, deb), os.path.join(root, "pocketsphinx")], check=True)
    name, version = ALSA_PACKAGE
    if not os.path.isdir(os.path.join(root, "alsa", "usr", "share", "sounds", "alsa")):
        subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=root, check=True)
        deb = next(f for f in os.listdir(root) if f.startswith(name + "_") and f.endswith(".deb"))
        subprocess.run(["dpkg-deb", "-x", os.path.join(root, deb), os.path.join(root, "alsa")], check=True)
    name, version, member = NPM_PACKAGE
    if not os.path.isfile(os.path.join(root, member)):
        subprocess.run(["npm", "pack", f"{name}@{version}", "--pack-destination", root], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["tar", "-xzf", os.path.join(root, f"{name}-{version}.tgz"), "-C", root, member], check=True)


def sphinx_data(root: str = SPEECH_REFS) -> str:
    """pocketsphinx-testdata's test/data folder under `root` (after fetch_reference_speech)."""
    return os.path.join(root, "pocketsphinx", "usr", "share", "pocketsphinx", "test", "data")


def read_sphinx_transcription(path: str) -> dict:
    """{file id: reference text} of a Sphinx transcription file."""
    out = {}
    with open(path) as f:
        for line in f:
            found = re.match(r"<s>(.*)</s>\s*\((\S+)\)", line.strip())
            if found:
                out[found.group(2)] = found.group(1).strip()
    return out
