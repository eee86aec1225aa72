#!/usr/bin/env python3
"""Streaming Whisper engine for the live transcription worker (decision 0030).

One long-lived process per live worker slot; it holds the model and serves one live
session after another. JSON lines on stdin, JSON lines on stdout, logs on stderr:

  {"op": "start", "model_dir": "/path", "language": "en" | null, "threads": 2,
   "compute_type": "int8", "device": "cpu", "beam_size": 1, "prompt": null}
  {"op": "audio", "pcm": "<base64 of 16 kHz mono signed 16-bit little-endian samples>"}
  {"op": "flush"}          (settle everything heard so far now, then go on: "words" with "flushed")
  {"op": "stop"}           (decode what is left, settle everything, then "stopped")
  {"op": "ping"}

  {"event": "ready", "load_seconds": 0.8}                                   (after start)
  {"event": "words", "settled": [word...], "partial": [word...], "audio_seconds": 12.5,
   "decode_seconds": 0.41}
  {"event": "stopped", "audio_seconds": 31.2}
  {"event": "pong"}
  {"event": "error", "kind": "...", "message": "..."}
  word = {"word": " hello", "start": 1.02, "end": 1.31, "probability": 0.93}

"settled" words are new since the last event and never change again; "partial" is the
whole unsettled tail as it stands now (it replaces the previous one). Times are seconds
from the start of the session's audio.

The policy is whisper_streaming's LocalAgreement-2 (Macháček et al., 2023), VAD-gated:

- audio collects in a buffer; whenever `MIN_CHUNK_SECONDS` of new audio has arrived, the
  whole buffer is decoded again (prompted with the settled text that has left it);
- a word is settled when two consecutive hypotheses agree on it (the longest common
  prefix of the new hypothesis and the previous one, after the settled words), once the
  buffer holds `MIN_AGREE_SECONDS` of audio;
- Silero VAD gates the decoder: a buffer without speech is not decoded (no invented
  text in silence), and once the speaker has paused for `PAUSE_SECONDS`, every word of
  the latest hypothesis that ends before the pause is settled at once, without waiting
  for a second agreeing hypothesis;
- a word the hypotheses keep reading differently settles anyway once `SETTLE_AFTER_SECONDS`
  of audio follow it, as the latest hypothesis reads it, so no word waits for the speaker
  to pause;
- the buffer is trimmed at the end of the last settled segment once it is longer than
  `TRIM_SECONDS`, and at the settled words' end after a pause, so a decode never covers
  more than about `TRIM_SECONDS` (Whisper's window is 30 s); once it is longer than
  `GAP_TRIM_SECONDS`, also inside the last silence the VAD heard whose words are all
  settled, so a decode does not write settled words again;
- a hypothesis that starts repeating itself (a phrase said over and over, the way a short
  window makes Whisper loop) is cut after the phrase's first saying, so a loop never settles.
"""

from __future__ import annotations

import base64
import functools
import itertools
import json
import os
import queue
import re
import sys
import threading
import time
import traceback

from whisper_engine import EngineError, decode_options, exit_with_parent, load_model, log, send

SAMPLE_RATE = 16000
MIN_CHUNK_SECONDS = float(os.environ.get("LIVE_MIN_CHUNK_SECONDS", "0.5"))
TRIM_SECONDS = float(os.environ.get("LIVE_TRIM_SECONDS", "12"))
PAUSE_SECONDS = float(os.environ.get("LIVE_PAUSE_SECONDS", "0.6"))
# A decode's cost grows by about 10 ms for every token it writes, and most of what it writes
# is words already settled that are still in the buffer; a silence is a cut that leaves no
# word in half (decision 0030). 0 turns it off.
GAP_TRIM_SECONDS = float(os.environ.get("LIVE_GAP_TRIM_SECONDS", "3"))
# A word still unsettled this long after its end is one the hypotheses keep rewording (mumbled or
# far-field speech); two of them may never agree before the speaker pauses, which made the slowest
# settles (decision 0030). Past this, the latest reading, the one with the most audio after the
# word, settles. 0 turns it off.
SETTLE_AFTER_SECONDS = float(os.environ.get("LIVE_SETTLE_AFTER_SECONDS", "1.8"))
# A buffer shorter than this is too little audio to agree on: the first decodes after a pause
# cut the buffer hear half a second of the next sentence and guess its start ("Howdy, Mary" for
# "had he married a"), and two such guesses agree as readily as two right ones (decision 0030).
# The pause and age rules still apply below it. 0 turns it off.
MIN_AGREE_SECONDS = float(os.environ.get("LIVE_MIN_AGREE_SECONDS", "2"))
# The last decode of an utterance (stop, or a client's commit) has no later hypothesis to agree
# with, so it gets the batch pass's beam: with beam 1 it settled "7F clubs" where the batch wrote
# "7 of clubs" (decision 0030; bench:live:accuracy +4.35 → +2.17 points over the batch).
FINAL_BEAM = int(os.environ.get("LIVE_FINAL_BEAM", "5"))
PROMPT_CHARS = 200
# The encoder reads the buffer and a second of silence after it, in whole seconds, at least
# LIVE_WINDOW_FLOOR_SECONDS, instead of Whisper's 30 s window (0: always 30 s). See
# ShortWindowWhisper and decision 0030 for what this costs in accuracy and saves in time.
WINDOW_FLOOR_SECONDS = float(os.environ.get("LIVE_WINDOW_FLOOR_SECONDS", "10"))
WINDOW_PAD_SECONDS = 1.0
FULL_WINDOW_FRAMES = 3000  # Whisper's 30 s of 10 ms mel frames
# A bound on the tokens of one decode: speech runs below ~7 tokens a second (timestamps
# included); a decode running on past that is repeating itself (a short window makes
# Whisper loop more often), and the cap keeps such a decode from costing seconds.
TOKENS_PER_SECOND = 10
MAX_NEW_TOKENS = 200


def _key(word: str) -> str:
    return re.sub(r"[^\w']+", "", word.lower())


def before_loop(words: list) -> list:
    """The hypothesis up to where it starts looping: a phrase of 2-4 words said three times in
    a row, or one word four times, keeps its first saying only. People repeat a word twice or
    three times ("no, no, no"); Whisper in a short window writes "E. E. E. E. ..." to its token
    cap, and two decodes of the same loop agree, so without this the loop settles."""
    keys = [_key(w["word"]) for w in words]
    for i in range(len(keys)):
        for n in range(1, 5):
            times = 4 if n == 1 else 3
            if i + n * times > len(keys):
                break
            if all(keys[i + k * n : i + (k + 1) * n] == keys[i : i + n] for k in range(1, times)):
                return words[: i + n]
    return words


def ending_by(words: list, limit: float, min_length: float = 0.0) -> list:
    """The leading words that end by `limit` and last at least `min_length`: a prefix, so the
    words left after it keep their order."""
    return list(itertools.takewhile(lambda w: w["end"] <= limit and w["end"] - w["start"] >= min_length, words))


class LivePolicy:
    """The streaming policy, apart from I/O: feed samples, call step(), read words."""

    def __init__(self, decode, vad=None, min_chunk=MIN_CHUNK_SECONDS, trim=TRIM_SECONDS, pause=PAUSE_SECONDS):
        import numpy as np

        self.np = np
        self.decode = decode  # (samples, prompt, final) -> list of segments [{"end", "words": [{word,start,end,probability}]}] in buffer time
        self.vad = vad  # (samples) -> list of (start, end) speech seconds in buffer time, or None: no gating
        self.min_chunk = min_chunk
        self.trim = trim
        self.pause = pause
        self.buffer = np.zeros(0, dtype=np.float32)
        self.offset = 0.0  # session time of buffer[0]
        self.received = 0.0
        self.decoded_at = 0.0  # `received` at the last decode
        self.settled: list = []
        self.previous: list = []  # the last hypothesis beyond the settled words
        self.partial: list = []

    @property
    def settled_end(self) -> float:
        return self.settled[-1]["end"] if self.settled else 0.0

    def feed(self, samples) -> None:
        self.buffer = self.np.concatenate([self.buffer, samples])
        self.received += len(samples) / SAMPLE_RATE

    def due(self) -> bool:
        return self.received - self.decoded_at >= self.min_chunk

    def step(self, final: bool = False) -> list:
        """One decode of the buffer; returns the words settled by it."""
        self.decoded_at = self.received
        buffer_seconds = len(self.buffer) / SAMPLE_RATE
        speech = None
        if self.vad is not None and buffer_seconds > 0:
            speech = self.vad(self.buffer)
            if not speech:
                # Nothing spoken in the buffer: settle what was heard before, drop the rest
                # but a short tail (a word may be starting).
                newly = self._settle(self.previous) if final or self.previous else []
                self._cut(max(0.0, buffer_seconds - 0.5))
                self.previous, self.partial = [], []
                return newly
        if buffer_seconds < 0.3 and not final:
            return []
        hypothesis, segment_ends = self._hypothesis(final)
        if final:
            newly = self._settle(hypothesis)
            self.previous, self.partial = [], []
            self._cut(buffer_seconds)
            return newly
        agreed = 0
        while (
            buffer_seconds >= MIN_AGREE_SECONDS
            and agreed < len(hypothesis)
            and agreed < len(self.previous)
            and _key(hypothesis[agreed]["word"]) == _key(self.previous[agreed]["word"])
        ):
            agreed += 1
        newly = self._settle(hypothesis[:agreed])
        rest = hypothesis[agreed:]
        # Session time by which a word belongs to the speech the VAD heard (a word's last sound
        # may trail the VAD's end a little); None without a VAD.
        heard_until = self.offset + speech[-1][1] + 0.2 if speech else None
        # After a pause the utterance is complete: settle what ends before it.
        if heard_until is not None and rest and buffer_seconds - speech[-1][1] >= self.pause:
            done = ending_by(rest, heard_until)
            newly += self._settle(done)
            rest = rest[len(done):]
        if SETTLE_AFTER_SECONDS > 0 and rest:
            limit = self.offset + buffer_seconds - SETTLE_AFTER_SECONDS
            if heard_until is not None:
                # Not a word Whisper put in the silence after the speech.
                limit = min(limit, heard_until)
            # A word squeezed to no length is one the aligner could not place in the audio
            # (text carried over from the prompt, as a rule): it waits for a second reading.
            done = ending_by(rest, limit, min_length=0.02)
            newly += self._settle(done)
            rest = rest[len(done):]
        self.previous = rest
        self.partial = rest
        self._trim(segment_ends, speech, buffer_seconds)
        return newly

    def _hypothesis(self, final: bool = False):
        prompt_words, length = [], 0
        for w in reversed(self.settled):
            if w["end"] > self.offset:
                continue
            length += len(w["word"])
            if length > PROMPT_CHARS:
                break
            prompt_words.append(w["word"])
        prompt = "".join(reversed(prompt_words)).strip() or None
        segments = self.decode(self.buffer, prompt, final)
        words, ends = [], []
        for segment in segments:
            ends.append(self.offset + segment["end"])
            for w in segment["words"]:
                words.append({**w, "start": round(self.offset + w["start"], 3), "end": round(self.offset + w["end"], 3)})
        # Only what comes after the settled words: by time, then any repeated n-gram at the seam.
        words = [w for w in words if w["start"] > self.settled_end - 0.1]
        if self.settled and words:
            for n in range(min(5, len(self.settled), len(words)), 0, -1):
                tail = [_key(w["word"]) for w in self.settled[-n:]]
                head = [_key(w["word"]) for w in words[:n]]
                if tail == head:
                    words = words[n:]
                    break
        return before_loop(words), ends

    def _settle(self, words: list) -> list:
        words = [w for w in words if _key(w["word"]) or w["word"].strip()]
        self.settled.extend(words)
        return words

    def _trim(self, segment_ends: list, speech, buffer_seconds: float) -> None:
        if not self.settled:
            return
        if not self.previous and speech is not None and buffer_seconds - speech[-1][1] >= self.pause:
            # Everything heard is settled and the speaker paused: start afresh after it.
            self._cut(max(0.0, self.settled_end - self.offset))
            return
        if speech and GAP_TRIM_SECONDS > 0 and buffer_seconds > GAP_TRIM_SECONDS:
            cut = self._settled_silence(speech)
            if cut is not None:
                self._cut(cut)
                return
        if buffer_seconds <= self.trim:
            return
        cuts = [end for end in segment_ends if end <= self.settled_end + 0.01]
        cut = cuts[-1] if cuts else None
        if cut is None and buffer_seconds > 2 * self.trim:
            cut = self.settled_end  # no segment end to cut at: cut at the settled words
        if cut is not None and cut > self.offset:
            self._cut(cut - self.offset)

    def _settled_silence(self, speech) -> float | None:
        """The middle of the last silence between two stretches of speech (buffer seconds)
        before which every word is settled: the words reach the speech before it and no
        unsettled word starts before its middle."""
        settled_end = self.settled_end - self.offset
        first_open = self.previous[0]["start"] - self.offset if self.previous else float("inf")
        for (_, before), (after, _) in reversed(list(zip(speech, speech[1:]))):
            middle = (before + after) / 2
            if middle > 0 and settled_end >= before - 0.25 and first_open >= middle - 0.05:
                return middle
        return None

    def _cut(self, seconds: float) -> None:
        samples = int(seconds * SAMPLE_RATE)
        if samples <= 0:
            return
        self.buffer = self.buffer[samples:]
        self.offset += samples / SAMPLE_RATE


def encoder_window(content_frames: int, floor_seconds: float = WINDOW_FLOOR_SECONDS) -> int:
    """Mel frames the encoder reads for `content_frames` of audio."""
    if floor_seconds <= 0:
        return FULL_WINDOW_FRAMES
    seconds = max(floor_seconds, float(-(-(content_frames / 100 + WINDOW_PAD_SECONDS) // 1)))
    return min(FULL_WINDOW_FRAMES, int(seconds * 100))


def short_window(features, floor_seconds: float = WINDOW_FLOOR_SECONDS):
    """Whisper's input features (n_mels, 3000), the audio padded by faster-whisper with
    all-zero frames, cut to the encoder window of the audio they hold, the padding inside
    that window set to the features of silence.

    faster-whisper pads the log-Mel features with zeros, which in Whisper's normalised scale is
    not silence; at 30 s that padding is far from the speech, in a short window it is right
    after it and base then loops ("they well they well ...") or invents a continuation far
    more often. Silence is what Whisper saw in training: the log-Mel floor, which its
    normalisation puts exactly 2 below the input's maximum."""
    import numpy as np

    frames = features.shape[-1]
    spoken = np.flatnonzero(np.abs(features).reshape(-1, features.shape[-2], frames).max(axis=(0, 1)))
    content = int(spoken[-1]) + 1 if len(spoken) else 0
    window = encoder_window(content, floor_seconds)
    if window >= frames or content == 0:
        return features
    out = np.array(features[..., :window])
    out[..., content:] = out[..., :content].max() - 2.0
    return out


@functools.cache
def short_window_model_class():
    """faster-whisper's WhisperModel, with an encoder that reads a window as long as the
    audio (short_window) instead of always 30 s: the encoder over 30 s is most of a decode
    (about 1.4 of 2.1 CPU seconds for base on this host), over 10 s about a seventh of that.
    Everything else (decoding, timestamps, word alignment) is faster-whisper's own but for one
    window per decode, and CTranslate2's Whisper encoder takes any number of frames up to 3000."""
    from faster_whisper import WhisperModel

    class ShortWindowWhisper(WhisperModel):
        window_floor_seconds = WINDOW_FLOOR_SECONDS

        def encode(self, features):
            return super().encode(short_window(features, self.window_floor_seconds))

        def _split_segments_by_timestamps(self, tokenizer, tokens, time_offset, segment_size, segment_duration, seek):
            # One decode, one window. faster-whisper drops the text after the last closed
            # segment and decodes that tail again as a window of its own: a second encoder and
            # decoder pass, without the buffer's context or the prompt, on 40–60% of decodes on
            # AMI, for the newest words. Here the tail stays, as a segment that runs to the end
            # of the audio, and reporting a "single timestamp ending" moves on past the window.
            segments, _, _ = super()._split_segments_by_timestamps(tokenizer, tokens, time_offset, segment_size, segment_duration, seek)
            tail = tokens[sum(len(s["tokens"]) for s in segments) :]
            if segments and any(t < tokenizer.timestamp_begin for t in tail):
                # The tail opens with its own start timestamp: the second of the last pair.
                start = time_offset + (tail[0] - tokenizer.timestamp_begin) * self.time_precision
                segments.append(dict(seek=seek, start=start, end=time_offset + segment_duration, tokens=tail))
            return segments, seek + segment_size, True

    return ShortWindowWhisper


def whisper_decoder(model, request: dict):
    language = request.get("language") or None
    if language and not model.model.is_multilingual and language != "en":
        raise EngineError("bad_request", f"This model only understands English, not '{language}'")
    # One temperature: a fallback re-decodes the whole buffer up to twice more when a
    # hypothesis looks unsure, which on a 2-core host is seconds of lag, while the next
    # decode (LIVE_MIN_CHUNK_SECONDS later) is a retry anyway and a word settles only when
    # two hypotheses agree on it. The batch pass keeps its fallbacks.
    options = decode_options({"beam_size": request.get("beam_size") or 1}, language, "transcribe", [0.0])
    final_options = {**options, "beam_size": FINAL_BEAM}

    def decode(samples, prompt, final=False):
        nonlocal language
        max_new_tokens = min(MAX_NEW_TOKENS, int(len(samples) / SAMPLE_RATE * TOKENS_PER_SECOND) + 10)
        segments, info = model.transcribe(
            samples, **{**(final_options if final else options), "language": language, "initial_prompt": prompt}, vad_filter=False, max_new_tokens=max_new_tokens
        )
        out = [
            {
                "end": s.end,
                "words": [
                    {"word": w.word, "start": w.start, "end": w.end, "probability": round(w.probability, 4)}
                    for w in (s.words or [])
                ],
            }
            for s in segments
        ]
        # The language detected on the first speech holds for the session (no flip-flopping).
        if language is None and out:
            language = info.language
        return out

    return decode


def silero_vad():
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    options = VadOptions(min_silence_duration_ms=300, speech_pad_ms=100)

    def vad(samples):
        return [(s["start"] / SAMPLE_RATE, s["end"] / SAMPLE_RATE) for s in get_speech_timestamps(samples, options)]

    return vad


def reader(inbox: "queue.Queue") -> None:
    for line in sys.stdin:
        line = line.strip()
        if line:
            inbox.put(line)
    inbox.put(None)


def main() -> None:
    import numpy as np

    exit_with_parent()
    log(f"live engine ready (pid {os.getpid()})")
    inbox: "queue.Queue" = queue.Queue()
    threading.Thread(target=reader, args=(inbox,), daemon=True).start()
    policy = None
    vad = None
    while True:
        # Take every message that is waiting; block only when there is nothing to decode.
        messages = []
        try:
            block = policy is None or not policy.due()
            messages.append(inbox.get(timeout=0.1) if block else inbox.get_nowait())
            while True:
                messages.append(inbox.get_nowait())
        except queue.Empty:
            pass
        stop = False
        flush = False
        for line in messages:
            if line is None:
                return
            try:
                request = json.loads(line)
                op = request.get("op")
                if op == "audio":
                    if policy is None:
                        raise EngineError("bad_request", "audio before start")
                    pcm = base64.b64decode(request["pcm"])
                    if len(pcm) % 2:
                        raise EngineError("bad_audio", "PCM frames hold 16-bit samples: an odd number of bytes")
                    policy.feed(np.frombuffer(pcm, np.int16).astype(np.float32) / 32768.0)
                elif op == "start":
                    model, seconds = load_model(
                        request["model_dir"],
                        request.get("compute_type") or "int8",
                        int(request.get("threads") or 0),
                        request.get("device") or "cpu",
                        short_window_model_class(),
                    )
                    vad = vad or silero_vad()
                    policy = LivePolicy(whisper_decoder(model, request), vad)
                    send({"event": "ready", "load_seconds": seconds, "multilingual": model.model.is_multilingual})
                elif op == "stop":
                    stop = True
                elif op == "flush":
                    flush = True
                elif op == "ping":
                    send({"event": "pong", "pid": os.getpid()})
                else:
                    raise EngineError("bad_request", f"Unknown op {op!r}")
            except EngineError as error:
                send({"event": "error", "kind": error.kind, "message": str(error)})
            except Exception as error:
                log(traceback.format_exc())
                send({"event": "error", "kind": "engine", "message": f"{type(error).__name__}: {error}"})
        if policy is None:
            continue
        try:
            if stop or flush or policy.due():
                started = time.monotonic()
                cpu_started = time.process_time()
                buffer_seconds = len(policy.buffer) / SAMPLE_RATE
                settled = policy.step(final=stop or flush)
                send(
                    {
                        "event": "words",
                        "settled": settled,
                        "partial": policy.partial,
                        "audio_seconds": round(policy.received, 3),
                        "decode_seconds": round(time.monotonic() - started, 3),
                        # CPU time of the step (all threads) and the buffer it decoded: the load-independent cost.
                        "decode_cpu_seconds": round(time.process_time() - cpu_started, 3),
                        "buffer_seconds": round(buffer_seconds, 2),
                        "flushed": flush,
                    }
                )
            if stop:
                send({"event": "stopped", "audio_seconds": round(policy.received, 3)})
                policy = None
        except Exception as error:
            log(traceback.format_exc())
            send({"event": "error", "kind": "engine", "message": f"{type(error).__name__}: {error}"})
            policy = None


if __name__ == "__main__":
    main()
