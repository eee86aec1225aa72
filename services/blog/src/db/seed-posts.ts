/** The posts a fresh install starts with (migration 0002); later posts arrive through the webhook. */
export interface SeedPost {
  slug: string;
  title: string;
  subtitle: string;
  metaDescription: string;
  author: string;
  tags: string[];
  publishedAt: string;
  bodyMarkdown: string;
}

export const seedPosts: SeedPost[] = [
  {
    slug: "how-speech-to-text-works",
    title: "How speech-to-text actually works",
    subtitle: "From sound waves to words, without the hype",
    metaDescription: "A plain-language tour of modern speech recognition: audio features, encoder-decoder models, and why timestamps are hard.",
    author: "The Transcribe team",
    tags: ["ai", "transcription"],
    publishedAt: "2025-01-14T09:00:00Z",
    bodyMarkdown: `Modern transcription models do not "listen" the way people do. They turn audio into numbers and predict the most likely text.

## From waveform to spectrogram

Audio is resampled to 16 kHz mono and cut into short overlapping windows. Each window becomes a row of a **log-Mel spectrogram**: how much energy sits in each frequency band, on a scale close to how we hear.

## Encoder and decoder

An *encoder* reads thirty seconds of spectrogram at a time and builds a representation of what was said. A *decoder* then writes text one token at a time, looking back at the encoder's output. The same decoder can also be asked to translate into English or to detect the language.

## Why timestamps are hard

The model predicts words, not times. Word-level timestamps come from aligning the text back to the audio, which is why they can drift by a few hundred milliseconds around pauses and music.

## What this means for you

- Clear audio beats a bigger model.
- Choose the spoken language when you know it: detection on the first seconds can guess wrong.
- Review names and numbers; they are where models still slip.
`,
  },
  {
    slug: "five-tips-for-better-transcripts",
    title: "Five tips for better transcripts",
    subtitle: "Small recording habits that save hours of editing",
    metaDescription: "Practical recording tips for cleaner automatic transcripts: microphones, rooms, levels, file formats and language settings.",
    author: "The Transcribe team",
    tags: ["tips", "audio"],
    publishedAt: "2025-02-03T09:00:00Z",
    bodyMarkdown: `Most transcription errors start before the upload. These five habits fix most of them.

1. **Get the microphone close.** A cheap lapel microphone near the speaker beats an expensive one across the room.
2. **Pick a quiet, soft room.** Curtains, books and carpets absorb echo; bare walls and glass add it.
3. **Watch the levels.** Peaks around -12 dBFS leave room for laughter without clipping.
4. **Keep the original file.** Upload the recorder's own MP3, WAV, M4A or FLAC rather than a re-encoded copy of a copy.
5. **Set the language.** Automatic detection is good, but telling the service the language removes one source of error.

> The best edit is the one you never have to make.

Once the transcript is ready, export it as plain text, Word, PDF or SRT subtitles from the transcript page.
`,
  },
  {
    slug: "building-products-fast-with-ai",
    title: "Building products fast with AI",
    subtitle: "What we learned shipping a transcription service in weeks",
    metaDescription: "Lessons from building a self-hostable transcription product quickly: boring infrastructure, clear contracts and honest limits.",
    author: "The Transcribe team",
    tags: ["ai", "product"],
    publishedAt: "2025-03-10T09:00:00Z",
    bodyMarkdown: `AI models make the core feature cheap to build. Everything around it is still engineering.

## Boring infrastructure wins

PostgreSQL, a message bus and plain object storage carry the whole product. Each service owns its tables and talks to the others through typed contracts, so one part can change without breaking the rest.

## Be honest about limits

Uploads have a size limit, free accounts have a trial allowance, and long files take time. Saying so up front is better than a spinner that never ends.

## Self-hosting is a feature

Some recordings should never leave the building. Running the whole stack on one machine, with a local speech model, keeps them there.

Read the [documentation](https://github.com) or try it on your own files.
`,
  },
];
