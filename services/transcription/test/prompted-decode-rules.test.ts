import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { engineUnavailable, whisperPython } from "./helpers.js";

const engineDir = path.resolve(import.meta.dirname, "../engine");

/** Calls a pure function of engine/whisper_engine.py with JSON arguments. */
function call(name: string, ...args: unknown[]): unknown {
  const script = `import json, sys\nsys.path.insert(0, ${JSON.stringify(engineDir)})\nimport whisper_engine\nprint(json.dumps(whisper_engine.${name}(*json.loads(sys.stdin.read()))))`;
  return JSON.parse(execFileSync(whisperPython, ["-c", script], { input: JSON.stringify(args), encoding: "utf8" }));
}

const word = (start: number, end: number) => ({ start, end });

/**
 * Decision 0038: what a prompted decode keeps. The segments are those the engine gave on real
 * speech (docs/benchmarks.md, vocabulary): the invented ones must go, the real ones stay.
 */
describe.skipIf(engineUnavailable)("prompted decode: invented segments and forced terms", () => {
  it("drops a segment that failed every fallback temperature, or whose words are squeezed", () => {
    // base, librivox-0930: "Off." at temperature 1.0, avg_logprob -1.34.
    expect(call("invented", { temperature: 1.0, avg_logprob: -1.34, words: [word(2.72, 2.9)] }, 1.0)).toBe(true);
    // tiny.en, ami_trn00: "Thank you very much." in 0.1 s.
    expect(call("invented", { temperature: 1.0, avg_logprob: -1.13, words: [word(29.86, 29.86), word(29.86, 29.96), word(29.96, 29.96), word(29.96, 29.96)] }, 1.0)).toBe(true);
    // base, ami_dev00: "I'm sorry." four times in 0.08 s, at temperature 0.0.
    expect(call("invented", { temperature: 0.0, avg_logprob: -0.9, words: Array.from({ length: 8 }, () => word(29.89, 29.97)) }, 1.0)).toBe(true);
    // ALSA's Front_Right.wav (base): "Thank you." three times after "Front, Right.", 0.4 s, likely silence.
    expect(call("invented", { temperature: 0.0, avg_logprob: -0.98, no_speech_prob: 0.86, words: [word(1.1, 1.5), ...Array.from({ length: 5 }, () => word(1.5, 1.5))] }, 1.0)).toBe(true);
    // ALSA's Rear_Center.wav (tiny.en): "Here." after "Rear Center.".
    expect(call("invented", { temperature: 0.2, avg_logprob: -0.67, no_speech_prob: 0.65, words: [word(1.04, 1.14)] }, 1.0)).toBe(true);
    // Real speech Whisper also gave over 0.6: tiny.en's "Five, five." (1.2 s), a window of AMI speech.
    expect(call("invented", { temperature: 0.0, avg_logprob: -0.5, no_speech_prob: 0.7, words: [word(0.0, 0.6), word(0.8, 1.2)] }, 1.0)).toBe(false);
    // ami_dev00's real segment with "Real Reaction": weak, but decoded at 0.0 at a speaking pace, speech likely.
    expect(call("invented", { temperature: 0.0, avg_logprob: -0.39, no_speech_prob: 0.47, words: [word(1.78, 2.42), word(2.58, 2.62), word(2.7, 2.74)] }, 1.0)).toBe(false);
    // A real word decoded at the last temperature but above the threshold stays.
    expect(call("invented", { temperature: 1.0, avg_logprob: -0.8, words: [word(0, 0.4)] }, 1.0)).toBe(false);
    // Batched decoding has no fallback: the caller passes infinity, a failed decode is kept.
    expect(call("invented", { temperature: 0.0, avg_logprob: -1.5, words: [word(0, 0.4)] }, Number.MAX_VALUE)).toBe(false);
  });

  it("finds a term written with almost no probability, not one said", () => {
    const words = (pairs: Array<[string, number]>) => pairs.map(([w, probability]) => ({ word: ` ${w}`, probability }));
    // tiny.en, ami_trn00: "Ok, Zanzibar wants to see"; base said "Kubernetes" at 0.042 on synthesized speech.
    expect(call("forced_terms", words([["Ok,", 0.08], ["Zanzibar", 0.004], ["wants", 0.94]]), ["Kubernetes", "Zanzibar"])).toEqual(["Zanzibar"]);
    expect(call("forced_terms", words([["the", 0.79], ["Kubernetes", 0.042], ["meet", 0.88]]), ["Kubernetes", "Zanzibar"])).toEqual([]);
    // tiny.en, synthesized: "Okonkwo, Kubernetes," after the sentence's end.
    expect(call("forced_terms", words([["Okonkwo,", 0.0027], ["Kubernetes,", 0.44]]), ["Okonkwo", "Kubernetes"])).toEqual(["Okonkwo"]);
    // base, ami_dev00: "because of Real Reaction." — one of the term's words is likely.
    expect(call("forced_terms", words([["of", 1.0], ["Real", 0.02], ["Reaction.", 0.86]]), ["Real Reaction", "EyeLink"])).toEqual([]);
    expect(call("forced_terms", words([["the", 0.9], ["EyeLink.", 0.009]]), ["eyelink"])).toEqual(["eyelink"]);
    expect(call("forced_terms", words([["eye", 0.01], ["link", 0.01]]), ["EyeLink"])).toEqual([]);
  });
});
