// Speakers on the transcript page (decision 0020): turn labels in colour, rename in place (with
// the API's rules), filter by speaker, identify speakers again; the start form's toggle and
// counts. Real components and API client, `fetch` stubbed at the network boundary.
import { QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createAppQueryClient } from "../src/app/query-client";
import { StartTranscriptionForm } from "../src/features/transcriptions/StartTranscriptionForm";
import { billingAnswers, json, sessionAnswer, stubNetwork, TEST_USER, type Answer } from "./fake-network";
import { renderApp } from "./render-app";
import { chooseInCombobox } from "./choose";

beforeAll(() => {
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

const detail = (names: Record<string, string> = {}) => ({
  id: "t1",
  display_name: "Team meeting",
  status: "completed",
  config: { model: "whisper-base", language: "en", timestamp_granularities: ["segment"], diarize: true },
  audio_file: { file_id: "f1", file_name: "meeting.mp3" },
  result: {
    id: "r1",
    text: "Hello there. General Kenobi. You are a bold one.",
    language: "en",
    duration: 15,
    revision: 1,
    speaker_turns: [],
    speakers: [
      { id: "S1", name: names.S1 ?? "S1" },
      { id: "S2", name: names.S2 ?? "S2" },
    ],
    segments: [
      { id: 0, start: 0, end: 4, text: " Hello there.", speaker: "S1" },
      { id: 1, start: 4, end: 9, text: " General Kenobi.", speaker: "S2" },
      { id: 2, start: 9, end: 12, text: " You are a bold one.", speaker: "S2" },
    ],
  },
  created_at: "2025-03-01T10:00:00.000Z",
  updated_at: "2025-03-01T10:05:00.000Z",
});

function bodyOf(network: ReturnType<typeof stubNetwork>, method: string, path: string): unknown {
  const call = network.fetch.mock.calls.find(([input, init]) => {
    const url = new URL(String(input), "http://localhost");
    return url.pathname === path && (init as RequestInit | undefined)?.method === method;
  });
  return call ? JSON.parse(String((call[1] as RequestInit).body)) : undefined;
}

function openTranscript(extra: Record<string, Answer> = {}) {
  let names: Record<string, string> = {};
  const network = stubNetwork({
    "GET /auth/get-session": sessionAnswer(TEST_USER),
    ...billingAnswers(),
    "GET /api/v1/transcriptions/t1": () => json(detail(names)),
    "GET /api/v1/transcriptions/t1/audio-url": () => json({ url: "https://media.example/t1.mp3", expires_at: "2099-01-01T00:00:00.000Z" }),
    "PATCH /api/v1/transcriptions/t1/speakers/S1": () => {
      names = { S1: "Alice" };
      return json({ speakers: detail(names).result.speakers });
    },
    ...extra,
  });
  return { ...renderApp(["/transcript/t1"]), network };
}

describe("speakers on the transcript page", () => {
  it("labels each turn once, in the speaker's colour", async () => {
    openTranscript();
    const segments = await screen.findByRole("list", { name: "Segments" });
    const tags = within(segments).getAllByText(/^S[12]$/);
    expect(tags.map((t) => t.textContent)).toEqual(["S1", "S2"]);
    expect(tags[0]!.style.color).not.toBe(tags[1]!.style.color);
  });

  it("renames a speaker in place: refuses empty and too long names, sends the trimmed name, shows it", async () => {
    const { network } = openTranscript();
    const panel = await screen.findByLabelText("Speakers");
    fireEvent.click(within(panel).getByRole("button", { name: "Rename speaker S1" }));
    const input = within(panel).getByLabelText("Speaker name");
    fireEvent.change(input, { target: { value: "   " } });
    fireEvent.click(within(panel).getByRole("button", { name: "Save" }));
    expect(await within(panel).findByText("Speaker name cannot be empty")).toBeInTheDocument();
    fireEvent.change(input, { target: { value: "x".repeat(81) } });
    fireEvent.click(within(panel).getByRole("button", { name: "Save" }));
    expect(await within(panel).findByText("Speaker name is too long (max 80 characters)")).toBeInTheDocument();
    expect(network.calls).not.toContain("PATCH /api/v1/transcriptions/t1/speakers/S1");

    fireEvent.change(input, { target: { value: "  Alice  " } });
    fireEvent.click(within(panel).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(bodyOf(network, "PATCH", "/api/v1/transcriptions/t1/speakers/S1")).toEqual({ name: "Alice" }));
    const segments = screen.getByRole("list", { name: "Segments" });
    await waitFor(() => expect(within(segments).getByText("Alice")).toBeInTheDocument());
  });

  it("filters the segments by speaker", async () => {
    openTranscript();
    const panel = await screen.findByLabelText("Speakers");
    await screen.findByText("General Kenobi.");
    fireEvent.click(within(panel).getByRole("button", { name: "Hide S2's segments" }));
    expect(screen.queryByText("General Kenobi.")).not.toBeInTheDocument();
    expect(screen.getByText("Hello there.")).toBeInTheDocument();
    fireEvent.click(within(panel).getByRole("button", { name: "Show all speakers" }));
    expect(screen.getByText("General Kenobi.")).toBeInTheDocument();
  });

  it("identifies speakers again with a count, without transcribing again", async () => {
    const { network } = openTranscript({ "POST /api/v1/transcriptions/t1/diarize": () => json({ job_id: "j2" }) });
    const panel = await screen.findByLabelText("Speakers");
    fireEvent.click(within(panel).getByRole("button", { name: "Identify speakers again" }));
    const dialog = await screen.findByRole("dialog");
    fireEvent.change(within(dialog).getByLabelText("Min speakers"), { target: { value: "3" } });
    fireEvent.change(within(dialog).getByLabelText("Max speakers"), { target: { value: "2" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Identify speakers" }));
    expect(await within(dialog).findByText("Minimum number of speakers cannot be more than the maximum")).toBeInTheDocument();
    fireEvent.change(within(dialog).getByLabelText("Min speakers"), { target: { value: "" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Identify speakers" }));
    await waitFor(() => expect(bodyOf(network, "POST", "/api/v1/transcriptions/t1/diarize")).toEqual({ max_speakers: 2 }));
    expect(network.calls).not.toContain("POST /api/v1/transcriptions/t1/retry");
  });
});

describe("start form: speakers", () => {
  it("sends diarize with the counts only when 'Identify speakers' is on", async () => {
    const network = stubNetwork({
      "GET /api/v1/models": () =>
        json({ models: [{ id: "whisper-base", provider: "local", name: "Whisper base (local)", languages: ["auto", "en"], translation: true, available: true }] }),
      "POST /api/v1/transcriptions": () => json({ job_id: "t9", transcription_id: "t9" }),
    });
    const onStarted = vi.fn();
    render(
      <QueryClientProvider client={createAppQueryClient()}>
        <StartTranscriptionForm fileId="f1" onStarted={onStarted} />
      </QueryClientProvider>,
    );
    await chooseInCombobox(await screen.findByLabelText("Language"), "en");
    expect(screen.queryByLabelText("Max speakers")).not.toBeInTheDocument();
    fireEvent.click(screen.getByRole("checkbox", { name: "Identify speakers" }));
    fireEvent.change(screen.getByLabelText("Max speakers"), { target: { value: "21" } });
    fireEvent.click(screen.getByRole("button", { name: "Start transcription" }));
    expect(await screen.findByText("Maximum number of speakers must be a whole number from 1 to 20")).toBeInTheDocument();
    expect(network.calls).not.toContain("POST /api/v1/transcriptions");
    fireEvent.change(screen.getByLabelText("Max speakers"), { target: { value: "3" } });
    fireEvent.click(screen.getByRole("button", { name: "Start transcription" }));
    await waitFor(() => expect(onStarted).toHaveBeenCalledWith("t9"));
    expect(bodyOf(network, "POST", "/api/v1/transcriptions")).toEqual({
      file_id: "f1",
      settings: { model: "whisper-base", language: "en", translate_to_en: false, timestamp_granularities: ["segment", "word"], diarize: true, max_speakers: 3 },
    });
  });
});
