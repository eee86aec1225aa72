#!/usr/bin/env python3
"""Vocabulary benchmark (decision 0029): term accuracy and WER with and without the
vocabulary, on real speech (AMI meeting excerpts) and on synthesized speech with known text.

Runs the product's engine (services/transcription/engine/whisper_engine.py) the way the
worker calls it, once without and once with the vocabulary, for each model.

  python bench/vocabulary/vocabulary.py --models base,tiny.en --out bench/results/vocabulary.json

Real speech has no word transcripts here, so its "WER change" on clips without the terms is
the word error rate of the with-vocabulary output against the without-vocabulary output: by
the triangle inequality of edit distance, the vocabulary cannot raise the WER against any
reference by more than that (relative to the reference's length, which is close to the
output's). Synthesized speech (espeak-ng) has its exact text, so its WER is measured directly.
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

_BESIDE_CLONE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data", "diarization")
AMI = os.environ.get("AMI_DIR", _BESIDE_CLONE if os.path.isdir(_BESIDE_CLONE) else "/work/shared/data/diarization")
MODELS = os.environ.get("WHISPER_MODELS_DIR", os.path.expanduser("~/.cache/transcribe/models"))
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
SYNTH_VOCABULARY = ["Siobhan", "Okonkwo", "Kubernetes", "Zanzibar", "Transcribe Pro", "Nakamura", "Real Reaction", "EyeLink"]


def words(text: str) -> list:
    return [w for w in re.sub(r"[^\w' ]+", " ", text.lower()).split() if w]


def edit_distance(a: list, b: list) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def wer(reference: str, hypothesis: str) -> float:
    ref = words(reference)
    return edit_distance(ref, words(hypothesis)) / max(1, len(ref))


def transcribe(model: str, audio: str, vocabulary: list) -> str:
    result = whisper_engine.transcribe(
        {"model_dir": os.path.join(MODELS, model), "audio": audio, "language": "en", "threads": int(os.environ.get("THREADS", "2")), "vocabulary": vocabulary, "seed": 0}
    )
    return " ".join(s["text"].strip() for s in result["segments"])


def synthesize(text: str, path: str) -> None:
    raw = path + ".raw.wav"
    subprocess.run([*ESPEAK_NG, "-v", "en-us", "-s", "150", "-w", raw, text], check=True)
    subprocess.run(["sox", raw, "-r", "16000", "-c", "1", path], check=True)
    os.remove(raw)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="base,tiny.en")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "vocabulary.json"))
    parser.add_argument("--report", action="store_true", help="also write the vocabulary block of docs/benchmarks.md")
    args = parser.parse_args()
    clips = sorted(f[:-4] for f in os.listdir(AMI) if f.endswith(".wav"))
    tmp = tempfile.mkdtemp(prefix="vocabulary-bench-")
    synth_paths = []
    for i, (text, _) in enumerate(SYNTH):
        path = os.path.join(tmp, f"synth{i}.wav")
        synthesize(text, path)
        synth_paths.append(path)
    report = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load": os.getloadavg()[0], "models": {}}
    for model in args.models.split(","):
        rows = []
        for clip in clips:
            audio = os.path.join(AMI, clip + ".wav")
            without = transcribe(model, audio, [])
            with_ = transcribe(model, audio, VOCABULARY)
            rows.append({"clip": clip, "real": True, "terms": REAL_TERMS.get(clip, []), "without": without, "with": with_})
            print(model, clip, "|", without, "|", with_, file=sys.stderr, flush=True)
        for i, (text, terms) in enumerate(SYNTH):
            without = transcribe(model, synth_paths[i], [])
            with_ = transcribe(model, synth_paths[i], SYNTH_VOCABULARY)
            rows.append({"clip": f"synth{i}", "real": False, "reference": text, "terms": terms, "without": without, "with": with_})
            print(model, f"synth{i}", "|", without, "|", with_, file=sys.stderr, flush=True)
        summary = {}
        for real in (True, False):
            kind = "real" if real else "synthesized"
            mine = [r for r in rows if r["real"] == real]
            said = [(r, t) for r in mine for t in r["terms"]]
            summary[kind] = {
                "term_accuracy_without": sum(t in r["without"] for r, t in said) / max(1, len(said)),
                "term_accuracy_with": sum(t in r["with"] for r, t in said) / max(1, len(said)),
                "terms": len(said),
                # Any vocabulary term a clip does not contain showing up in its transcript.
                "forced_insertions": [
                    {"clip": r["clip"], "term": t}
                    for r in mine
                    for t in (VOCABULARY if real else SYNTH_VOCABULARY)
                    if t not in r["terms"] and t.lower() in r["with"].lower() and t.lower() not in r["without"].lower()
                ],
            }
            plain = [r for r in mine if not r["terms"]]
            if real:
                # Upper bound of the WER change on clips without the terms (see the docstring).
                changes = [wer(r["without"], r["with"]) for r in plain if words(r["without"])]
                summary[kind]["clips_without_terms"] = len(plain)
                summary[kind]["max_word_change_without_terms"] = max(changes, default=0.0)
                summary[kind]["mean_word_change_without_terms"] = sum(changes) / max(1, len(changes))
            else:
                for subset, name in ((mine, "all"), (plain, "without_terms")):
                    summary[kind][f"wer_{name}_without"] = sum(wer(r["reference"], r["without"]) for r in subset) / max(1, len(subset))
                    summary[kind][f"wer_{name}_with"] = sum(wer(r["reference"], r["with"]) for r in subset) / max(1, len(subset))
        report["models"][model] = {"summary": summary, "rows": rows}
        print(json.dumps({model: summary}, indent=2), flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2, ensure_ascii=False)
    if args.report:
        write_block(report, os.path.join(ROOT, "docs", "benchmarks.md"))


def pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def write_block(report: dict, path: str) -> None:
    """The vocabulary block of docs/benchmarks.md (kept as is by bench/report/generate.ts)."""
    lines = [
        "<!-- vocabulary:start -->",
        "## Vocabulary (`bench/vocabulary/vocabulary.py`)",
        "",
        f"Recorded {report['started']} on this 2-core machine, load average {report['load']:.1f} (shared; only",
        "accuracy is reported, no times). The product's engine (`whisper_engine.py`, greedy, int8, VAD) once without",
        f"and once with the vocabulary {', '.join(VOCABULARY)} (real speech) or {', '.join(SYNTH_VOCABULARY)}",
        "(synthesized). Term accuracy: share of the terms said in a clip that the transcript spells exactly (case",
        "included). Real speech: the 11 AMI excerpts of `shared/data/diarization` (30 s each, meeting speech); the",
        'terms said there were chosen from both models\' output where the context leaves no doubt: ami_dev00 "Real',
        'Reaction" (the AMI scenario\'s company), ami_trn03 "syncing" ("the time syncing up"), ami_trn09 "EyeLink"',
        '(the lab\'s eye tracker). There are no word transcripts of these excerpts here, so on the clips without the terms the table gives the words the',
        "vocabulary changed (WER of the with-vocabulary output against the without one): by the triangle inequality",
        "that bounds how much the WER against any reference can grow. Synthesized speech (espeak-ng, 5 sentences, 3",
        "without any term) has its exact text, so its WER is measured directly. Forced insertions: a vocabulary term",
        "that a clip does not contain appearing in its transcript (and not already there without the vocabulary).",
        "",
        "| model | speech | terms said | term accuracy without | with | WER without | with | WER on clips without the terms: without | with | words changed on clips without the terms (mean / max) | forced insertions |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for model, data in report["models"].items():
        real = data["summary"]["real"]
        synth = data["summary"]["synthesized"]
        insertions = lambda s: ", ".join(f"{i['term']} in {i['clip']}" for i in s["forced_insertions"]) or "none"
        lines.append(
            f"| {model} | real (AMI, 11 clips) | {real['terms']} | {pct(real['term_accuracy_without'])} | {pct(real['term_accuracy_with'])} | n/a | n/a | n/a | n/a | "
            f"{pct(real['mean_word_change_without_terms'])} / {pct(real['max_word_change_without_terms'])} ({real['clips_without_terms']} clips) | {insertions(real)} |"
        )
        lines.append(
            f"| {model} | synthesized (5 sentences) | {synth['terms']} | {pct(synth['term_accuracy_without'])} | {pct(synth['term_accuracy_with'])} | "
            f"{pct(synth['wer_all_without'])} | {pct(synth['wer_all_with'])} | {pct(synth['wer_without_terms_without'])} | {pct(synth['wer_without_terms_with'])} | n/a | {insertions(synth)} |"
        )
    lines += [
        "",
        "Reading (2026-11-25 run): the terms help where the model has the sounds (synthesized names 17% → 100% with",
        "base; \"Real Reaction\" on ami_dev00 with both models, \"syncing\" with tiny.en), and no absent term was inserted",
        "anywhere. \"EyeLink\" on ami_trn09 is not fixed by the prompt with either model (it comes out \"I link\" / \"eye-link\"):",
        "that is what the \"sounds like\" replacement is for (tested through the product). On synthesized clips without",
        "the terms the WER moved by +0.3 point (base) and 0 (tiny.en), inside the 1-point limit. On real meeting",
        "speech the limit is NOT shown to hold: with base, ami_trn06 lost its first sentence (\"years just because of",
        "the floods ... Aren't they suing him?\") with the vocabulary, 31% of its words changed; without references",
        "the other clips' changes (0-19%) mix harmless punctuation and casing with real differences. An earlier",
        "prompt without the \"Glossary:\" label made base write \"She opened the window\" as \"Siobhan, The Window\"",
        "(WER on term-free synthesized clips 5.8% → 12.1%); the label fixed that but also lost \"syncing\" with base.",
        "",
        "Transcripts of every clip, without and with: `bench/results/vocabulary.json`.",
        "<!-- vocabulary:end -->",
    ]
    block = "\n".join(lines)
    with open(path) as f:
        current = f.read()
    if "<!-- vocabulary:start -->" in current:
        current = re.sub(r"<!-- vocabulary:start -->[\s\S]*?<!-- vocabulary:end -->", lambda _: block, current)
    else:
        marker = "## First run"
        current = current.replace(marker, block + "\n\n" + marker, 1) if marker in current else current + "\n" + block + "\n"
    with open(path, "w") as f:
        f.write(current)


if __name__ == "__main__":
    main()
