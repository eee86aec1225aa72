// The dashboard's upload, start form and table, and the transcript page with its player
// and export menu: real components and API client, `fetch` stubbed at the network boundary.
import { QueryClientProvider } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createAppQueryClient } from "../src/app/query-client";
import { StartTranscriptionForm } from "../src/features/transcriptions/StartTranscriptionForm";
import { MAX_UPLOAD_BYTES } from "../src/lib/form-rules";
import { billingAnswers, json, sessionAnswer, stubNetwork, TEST_USER, type Answer } from "./fake-network";
import { renderApp } from "./render-app";
import { chooseInCombobox, chooseInSelect } from "./choose";

beforeAll(() => {
  // Radix measures menus with ResizeObserver, which jsdom lacks.
  window.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const MODELS = {
  models: [
    { id: "whisper-base", provider: "local", name: "Whisper base (local)", languages: ["auto", "en", "de"], translation: true, available: true },
    {
      id: "whisper-large-v3",
      provider: "groq",
      name: "Whisper large v3 (Groq)",
      languages: ["auto", "en", "de"],
      translation: true,
      available: false,
      reason: "GROQ_API_KEY is not set",
    },
  ],
};

const ROWS = [
  { id: "t1", display_name: "Team meeting", duration: 125, model: "whisper-base", status: "completed", uploaded_at: "2025-03-01T10:00:00.000Z" },
  { id: "t2", display_name: "Lecture", duration: 3725, model: "whisper-base", status: "transcribing", uploaded_at: "2025-03-02T10:00:00.000Z" },
];

const DETAIL = {
  id: "t1",
  display_name: "Team meeting",
  status: "completed",
  config: { model: "whisper-base", language: "en", timestamp_granularities: ["segment", "word"], diarize: false },
  audio_file: { file_id: "f1", file_name: "meeting.mp3", content_type: "audio/mpeg" },
  result: {
    id: "r1",
    text: "Hello there. General Kenobi. You are a bold one.",
    language: "en",
    duration: 15,
    revision: 1,
    speakers: [],
    speaker_turns: [],
    segments: [
      { id: 0, start: 0, end: 4, text: " Hello there." },
      {
        id: 1,
        start: 4,
        end: 9,
        text: " General Kenobi.",
        words: [
          { word: " General", start: 4, end: 6 },
          { word: " Kenobi.", start: 6, end: 9 },
        ],
      },
      { id: 2, start: 9, end: 15, text: " You are a bold one." },
    ],
  },
  created_at: "2025-03-01T10:00:00.000Z",
  updated_at: "2025-03-01T10:05:00.000Z",
};

function signedIn(url: string, answers: Record<string, Answer> = {}) {
  const network = stubNetwork({ "GET /auth/get-session": sessionAnswer(TEST_USER), ...billingAnswers(), ...answers });
  return { ...renderApp([url]), network };
}

function bodyOf(network: ReturnType<typeof stubNetwork>, method: string, path: string): unknown {
  const call = network.fetch.mock.calls.find(([input, init]) => {
    const url = new URL(String(input), "http://localhost");
    return url.pathname === path && (init as RequestInit | undefined)?.method === method;
  });
  if (!call) return undefined;
  return JSON.parse(String((call[1] as RequestInit).body));
}

function fileOf(name: string, type: string, size: number): File {
  const file = new File(["x"], name, { type });
  Object.defineProperty(file, "size", { value: size });
  return file;
}

describe("upload on /dashboard", () => {
  const emptyList = { "GET /api/v1/transcriptions": () => json({ transcriptions: [], total_count: 0 }) };

  it.each([
    ["an empty file", fileOf("talk.mp3", "audio/mpeg", 0), "File cannot be empty"],
    ["a file over 100 MB", fileOf("talk.mp3", "audio/mpeg", MAX_UPLOAD_BYTES + 1), "File too large (max 100MB)"],
    ["a text file", fileOf("notes.txt", "text/plain", 10), "Invalid file type. Allowed types: audio/mpeg,"],
    ["a name without extension", fileOf("recording", "audio/mpeg", 10), "Filename must have an extension"],
  ])("refuses %s with the spec's message, before any request", async (_, file, message) => {
    const { network } = signedIn("/dashboard", emptyList);
    const input = await screen.findByTestId("file-input");
    fireEvent.change(input, { target: { files: [file] } });
    const alert = await within(screen.getByTestId("dropzone")).findByRole("alert");
    expect(alert.textContent).toContain(message);
    expect(network.calls.some((call) => call.startsWith("POST /api/v1/upload"))).toBe(false);
  });

  it("accepts exactly 100 MB of mp3 (no message)", async () => {
    signedIn("/dashboard", emptyList);
    const input = await screen.findByTestId("file-input");
    fireEvent.change(input, { target: { files: [fileOf("talk.mp3", "audio/mpeg", MAX_UPLOAD_BYTES)] } });
    // It moves on to reading the duration (which jsdom never finishes).
    expect(await screen.findByText("Reading the file…")).toBeInTheDocument();
    expect(screen.queryByRole("alert")).toBeNull();
  });
});

describe("start form", () => {
  function renderForm() {
    const network = stubNetwork({
      "GET /api/v1/models": () => json(MODELS),
      "POST /api/v1/transcriptions": () => json({ job_id: "t9", transcription_id: "t9" }),
    });
    const onStarted = vi.fn();
    render(
      <QueryClientProvider client={createAppQueryClient()}>
        <StartTranscriptionForm fileId="f1" onStarted={onStarted} />
      </QueryClientProvider>,
    );
    return { network, onStarted };
  }

  it("requires a language: 'Please select a language', nothing sent", async () => {
    const { network } = renderForm();
    fireEvent.click(await screen.findByRole("button", { name: "Start transcription" }));
    expect(await screen.findByText("Please select a language")).toBeInTheDocument();
    expect(network.calls).not.toContain("POST /api/v1/transcriptions");
  });

  it("lists unavailable models disabled with their reason, and offers auto-detect", async () => {
    renderForm();
    fireEvent.keyDown(await screen.findByRole("combobox", { name: "Model" }), { key: "Enter" });
    const option = await screen.findByRole("option", { name: /Whisper large v3 \(Groq\)/ });
    expect(option).toHaveAttribute("aria-disabled", "true");
    expect(option.textContent).toContain("GROQ_API_KEY is not set");
    fireEvent.keyDown(option, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("listbox")).toBeNull());
    fireEvent.click(screen.getByRole("combobox", { name: "Language" }));
    expect(await screen.findByRole("option", { name: "Detect automatically" })).toBeInTheDocument();
  });

  it("disables translation for English, then starts with the chosen settings", async () => {
    const { network, onStarted } = renderForm();
    const language = await screen.findByLabelText("Language");
    const translate = screen.getByRole("checkbox", { name: "Translate to English" });
    await chooseInCombobox(language, "german");
    expect(language).toHaveTextContent("German (de)");
    expect(translate).toBeEnabled();
    fireEvent.click(translate);
    await chooseInCombobox(language, "en");
    expect(language).toHaveTextContent("English (en)");
    expect(translate).toBeDisabled();
    expect(translate).not.toBeChecked();
    expect(screen.getByText("Cannot translate English to English")).toBeInTheDocument();

    fireEvent.click(screen.getByRole("button", { name: "Start transcription" }));
    await waitFor(() => expect(onStarted).toHaveBeenCalledWith("t9"));
    expect(bodyOf(network, "POST", "/api/v1/transcriptions")).toEqual({
      file_id: "f1",
      settings: { model: "whisper-base", language: "en", translate_to_en: false, timestamp_granularities: ["segment", "word"] },
    });
  });
});

describe("start form while the speech engine is prepared", () => {
  it("says 'Preparing the speech engine… 38%' in place of an error, and a job can be started (it waits)", async () => {
    const reason = "Preparing the speech engine… 38% (downloading Whisper base: 55 of 145 MB)";
    const preparing = {
      models: [{ ...MODELS.models[0], available: false, preparing: true, reason }, MODELS.models[1]],
    };
    const network = stubNetwork({
      "GET /api/v1/models": () => json(preparing),
      "POST /api/v1/transcriptions": () => json({ job_id: "t9", transcription_id: "t9" }),
    });
    const onStarted = vi.fn();
    render(
      <QueryClientProvider client={createAppQueryClient()}>
        <StartTranscriptionForm fileId="f1" onStarted={onStarted} />
      </QueryClientProvider>,
    );
    const status = await screen.findByTestId("engine-preparing");
    expect(status.textContent).toBe(
      "Preparing the speech engine… 38% (downloading Whisper base: 55 of 145 MB). You can start now: the transcription begins as soon as it is ready.",
    );
    const modelTrigger = screen.getByRole("combobox", { name: "Model" });
    fireEvent.keyDown(modelTrigger, { key: "Enter" });
    const preparingOption = await screen.findByRole("option", { name: "Whisper base (local)" });
    expect(preparingOption).toHaveTextContent("Preparing");
    expect(preparingOption).not.toHaveAttribute("aria-disabled", "true");
    fireEvent.click(preparingOption);
    await waitFor(() => expect(modelTrigger).toHaveFocus());
    expect(screen.queryByRole("alert")).toBeNull();
    await chooseInCombobox(screen.getByLabelText("Language"), "en");
    fireEvent.click(screen.getByRole("button", { name: "Start transcription" }));
    await waitFor(() => expect(onStarted).toHaveBeenCalledWith("t9"));
    expect(bodyOf(network, "POST", "/api/v1/transcriptions")).toMatchObject({ settings: { model: "whisper-base", language: "en" } });
  });
});

describe("transcriptions table", () => {
  function withRows() {
    return signedIn("/dashboard", {
      "GET /api/v1/transcriptions": () => json({ transcriptions: ROWS, total_count: 2 }),
      "PATCH /api/v1/transcriptions/t1/rename": () => json({ ...ROWS[0], display_name: "Renamed" }),
    });
  }

  it("renders name (linked), duration, model, status and date", async () => {
    withRows();
    const link = await screen.findByRole("link", { name: "Team meeting" });
    expect(link).toHaveAttribute("href", "/transcript/t1");
    const rows = screen.getAllByRole("row");
    expect(within(rows[1]!).getByText("02:05")).toBeInTheDocument();
    expect(within(rows[2]!).getByText("1:02:05")).toBeInTheDocument();
    expect(within(rows[1]!).getByText("Completed")).toBeInTheDocument();
    expect(within(rows[2]!).getByText("Transcribing")).toBeInTheDocument();
    expect(within(rows[1]!).getByText("whisper-base")).toBeInTheDocument();
  });

  it("shows the empty state", async () => {
    signedIn("/dashboard", { "GET /api/v1/transcriptions": () => json({ transcriptions: [], total_count: 0 }) });
    expect(await screen.findByText(/No transcriptions yet/)).toBeInTheDocument();
  });

  it("rename refuses an empty or too long name with the spec's messages, then sends the trimmed name", async () => {
    const { network } = withRows();
    fireEvent.click(await screen.findByRole("button", { name: "Rename Team meeting" }));
    const dialog = await screen.findByRole("dialog", { name: "Rename transcription" });
    const input = within(dialog).getByLabelText("Name");

    fireEvent.change(input, { target: { value: "   " } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByText("Name cannot be empty")).toBeInTheDocument();

    fireEvent.change(input, { target: { value: "a".repeat(256) } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByText("Name is too long")).toBeInTheDocument();
    expect(network.calls.some((call) => call.startsWith("PATCH"))).toBe(false);

    fireEvent.change(input, { target: { value: "  Renamed  " } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(bodyOf(network, "PATCH", "/api/v1/transcriptions/t1/rename")).toEqual({ new_name: "Renamed" }));
  });

  it("searches by name with q", async () => {
    const { network } = withRows();
    await screen.findByRole("link", { name: "Team meeting" });
    fireEvent.change(screen.getByRole("searchbox", { name: "Search names and words" }), { target: { value: "lect" } });
    await waitFor(() => expect(network.calls.some((call) => call.includes("q=lect"))).toBe(true));
  });
});

describe("transcript page", () => {
  function openTranscript(extra: Record<string, Answer> = {}) {
    return signedIn("/transcript/t1", {
      "GET /api/v1/transcriptions/t1": () => json(DETAIL),
      "GET /api/v1/transcriptions/t1/audio-url": () => json({ url: "https://media.example/t1.mp3", expires_at: "2099-01-01T00:00:00.000Z" }),
      ...extra,
    });
  }

  function segmentItem(text: string): HTMLElement {
    return screen.getByText(text).closest("li")!;
  }

  it("highlights the segment (and word) playing at the audio's currentTime", async () => {
    openTranscript();
    expect(await screen.findByRole("heading", { level: 1, name: "Team meeting" })).toBeInTheDocument();
    const audio = screen.getByTestId("transcript-audio") as HTMLAudioElement;
    await waitFor(() => expect(audio).toHaveAttribute("src", "https://media.example/t1.mp3"));

    act(() => {
      audio.currentTime = 10;
      audio.dispatchEvent(new Event("timeupdate"));
    });
    expect(segmentItem("You are a bold one.")).toHaveAttribute("aria-current", "true");
    expect(segmentItem("Hello there.")).not.toHaveAttribute("aria-current");

    act(() => {
      audio.currentTime = 6.5;
      audio.dispatchEvent(new Event("timeupdate"));
    });
    expect(screen.getByText("Kenobi.")).toHaveAttribute("data-active", "true");
    expect(screen.getByText("General")).not.toHaveAttribute("data-active");
    expect(segmentItem("You are a bold one.")).not.toHaveAttribute("aria-current");
  });

  it("clicking a segment or a word seeks the player there", async () => {
    openTranscript();
    await screen.findByRole("heading", { level: 1, name: "Team meeting" });
    const audio = screen.getByTestId("transcript-audio") as HTMLAudioElement;

    fireEvent.click(screen.getByText("You are a bold one."));
    expect(audio.currentTime).toBe(9);
    expect(segmentItem("You are a bold one.")).toHaveAttribute("aria-current", "true");

    fireEvent.click(screen.getByText("Kenobi."));
    expect(audio.currentTime).toBe(6);

    fireEvent.click(screen.getByRole("button", { name: "Play from 00:00" }));
    expect(audio.currentTime).toBe(0);
  });

  it("playback speed sets the element's rate; metadata is shown", async () => {
    openTranscript();
    await screen.findByRole("heading", { level: 1, name: "Team meeting" });
    const audio = screen.getByTestId("transcript-audio") as HTMLAudioElement;
    await chooseInSelect(screen.getByLabelText("Speed"), "1.5×");
    expect(audio.playbackRate).toBe(1.5);
    expect(screen.getByText("00:15")).toBeInTheDocument();
    expect(screen.getByText("meeting.mp3")).toBeInTheDocument();
  });

  it("export asks the API for the chosen format and starts the download", async () => {
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {});
    const { network } = openTranscript({
      "POST /api/v1/transcriptions/t1/export": () =>
        json({ download_url: "/api/v1/storage/exports/t1.srt?sig=x", format: "srt", expires_at: "2099-01-01T00:00:00.000Z" }),
    });
    await screen.findByRole("heading", { level: 1, name: "Team meeting" });
    fireEvent.keyDown(screen.getByRole("button", { name: "Export" }), { key: "Enter" });
    const menu = await screen.findByRole("menu");
    fireEvent.click(within(menu).getByRole("menuitem", { name: "Subtitles (.srt)" }));

    await waitFor(() => expect(click).toHaveBeenCalledTimes(1));
    expect(bodyOf(network, "POST", "/api/v1/transcriptions/t1/export")).toEqual({ format: "srt" });
    const link = click.mock.instances[0] as unknown as HTMLAnchorElement;
    expect(link.getAttribute("href")).toBe("/api/v1/storage/exports/t1.srt?sig=x");
    expect(link.hasAttribute("download")).toBe(true);
  });

  it("re-runs with another model: POST …/retry with the settings, then polls until completed", async () => {
    const models = {
      models: [...MODELS.models, { id: "whisper-small", provider: "local", name: "Whisper small (local)", languages: ["auto", "en", "de"], translation: true, available: true }],
    };
    let retried = false;
    let pollsAfterRetry = 0;
    const { network } = openTranscript({
      "GET /api/v1/models": () => json(models),
      "GET /api/v1/transcriptions/t1": () => {
        if (!retried) return json(DETAIL);
        pollsAfterRetry += 1;
        // The row goes back to pending, then the worker finishes it with the new model.
        return pollsAfterRetry === 1
          ? json({ ...DETAIL, status: "pending", result: null, config: { ...DETAIL.config, model: "whisper-small", language: "de" } })
          : json({
              ...DETAIL,
              config: { ...DETAIL.config, model: "whisper-small", language: "de" },
              result: { ...DETAIL.result, text: "Hallo da.", segments: [{ id: 0, start: 0, end: 4, text: " Hallo da." }] },
            });
      },
      "POST /api/v1/transcriptions/t1/retry": () => {
        retried = true;
        return json({ job_id: "job-2" });
      },
    });
    await screen.findByRole("heading", { level: 1, name: "Team meeting" });
    fireEvent.click(screen.getByRole("button", { name: "Re-run" }));
    const form = await screen.findByRole("form", { name: "Re-run transcription" });
    // It starts from the transcript's own settings.
    await waitFor(() => expect(within(form).getByLabelText("Model")).toHaveTextContent("Whisper base (local)"));
    expect(within(form).getByLabelText("Language")).toHaveTextContent("English (en)");

    await chooseInSelect(within(form).getByLabelText("Model"), "Whisper small (local)");
    expect(within(form).getByLabelText("Model")).toHaveTextContent("Whisper small (local)");
    await chooseInCombobox(within(form).getByLabelText("Language"), "de");
    expect(within(form).getByLabelText("Language")).toHaveTextContent("German (de)");
    fireEvent.click(within(form).getByRole("checkbox", { name: "Translate to English" }));
    fireEvent.click(within(form).getByRole("button", { name: "Re-run" }));

    await waitFor(() => expect(network.calls).toContain("POST /api/v1/transcriptions/t1/retry"));
    expect(bodyOf(network, "POST", "/api/v1/transcriptions/t1/retry")).toEqual({
      settings: { model: "whisper-small", language: "de", translate_to_en: true, timestamp_granularities: ["segment", "word"] },
    });
    // The form closes, the page shows the running status and polls until the new result arrives.
    expect(await screen.findByText(/this page updates by itself/)).toBeInTheDocument();
    expect(screen.queryByRole("form", { name: "Re-run transcription" })).toBeNull();
    expect(await screen.findByText("Hallo da.", {}, { timeout: 8_000 })).toBeInTheDocument();
    expect(screen.getByText("whisper-small")).toBeInTheDocument();
    expect(pollsAfterRetry).toBeGreaterThanOrEqual(2);
  }, 15_000);

  it("offers no re-run while the transcription runs", async () => {
    openTranscript({ "GET /api/v1/transcriptions/t1": () => json({ ...DETAIL, status: "transcribing", result: null }) });
    expect(await screen.findByText("Transcribing")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Re-run" })).toBeDisabled();
  });

  it("shows the model download a waiting job needs instead of a failure", async () => {
    let polls = 0;
    openTranscript({
      "GET /api/v1/transcriptions/t1": () => {
        polls += 1;
        return json({ ...DETAIL, status: "pending", result: null, progress: polls < 2 ? "Downloading Whisper medium: 120 MB of 1.5 GB" : "Downloading Whisper medium: 900 MB of 1.5 GB" });
      },
    });
    expect(await screen.findByText(/Downloading Whisper medium: 120 MB of 1\.5 GB…/)).toBeInTheDocument();
    expect(await screen.findByText(/Downloading Whisper medium: 900 MB of 1\.5 GB…/, undefined, { timeout: 8_000 })).toBeInTheDocument();
    expect(screen.queryByText(/failed/i)).not.toBeInTheDocument();
  }, 15_000);

  it("shows the status and polls while the transcription runs", async () => {
    openTranscript({ "GET /api/v1/transcriptions/t1": () => json({ ...DETAIL, status: "transcribing", result: null }) });
    expect(await screen.findByText("Transcribing")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Export" })).toBeDisabled();
  });
});
