// Account Settings → Voice library, against a fake of the network only: the switch and its
// explanation, the list, rename (with the server's refusal kept on the form), delete and
// turning the library off only after a confirmation.
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sentBody } from "./auth-screens-helpers";
import { billingAnswers, json, sessionAnswer, stubNetwork, TEST_USER, type Answer } from "./fake-network";
import { renderApp } from "./render-app";

afterEach(() => vi.unstubAllGlobals());

const voice = (id: string, name: string, samples = 1) => ({ id, name, samples, created_at: "2025-03-01T10:00:00.000Z", updated_at: "2025-03-02T10:00:00.000Z" });

function stubAccount(answers: Record<string, Answer>) {
  return stubNetwork({
    "GET /auth/get-session": sessionAnswer(TEST_USER),
    "GET /auth/list-accounts": () => json([]),
    "GET /auth/list-sessions": () => json([]),
    ...answers,
  });
}

async function openSection() {
  renderApp(["/account"]);
  await screen.findByRole("heading", { level: 1, name: "Account Settings" });
  return screen.findByTestId("account-voices");
}

describe("voice library", () => {
  it("is off by default with a plain explanation; turning it on sends enabled and lists voices", async () => {
    let enabled = false;
    const network = stubAccount({
      "GET /api/v1/voices/settings": () => json({ enabled }),
      "PUT /api/v1/voices/settings": () => {
        enabled = true;
        return json({ enabled });
      },
      "GET /api/v1/voices": () => json({ voices: [] }),
    });
    const section = await openSection();
    const toggle = await within(section).findByRole("switch", { name: "Remember the voices of speakers I name" });
    expect(toggle).not.toBeChecked();
    expect(section).toHaveTextContent("never the audio");
    expect(section).toHaveTextContent("deletes every saved voice");
    expect(network.calls).not.toContain("GET /api/v1/voices");

    fireEvent.click(toggle);
    await waitFor(() => expect(within(section).getByRole("switch")).toBeChecked());
    expect(sentBody(network, "PUT", "/api/v1/voices/settings")).toEqual({ enabled: true });
    expect(await within(section).findByText(/No saved voices yet/)).toBeInTheDocument();
  });

  it("lists saved voices, renames one (keeping the server's refusal), deletes one after confirming", async () => {
    let voices = [voice("v1", "Alex", 2), voice("v2", "Blair")];
    const network = stubAccount({
      "GET /api/v1/voices/settings": () => json({ enabled: true }),
      "GET /api/v1/voices": () => json({ voices }),
      "PATCH /api/v1/voices/v2": () => {
        const { name } = sentBody(network, "PATCH", "/api/v1/voices/v2") as { name: string };
        if (name === "Alex") return json({ error: { code: "already_exists", message: "You already have a voice with that name" } }, 409);
        voices = voices.map((v) => (v.id === "v2" ? { ...v, name } : v));
        return json(voices[1]);
      },
      "DELETE /api/v1/voices/v1": () => {
        voices = voices.filter((v) => v.id !== "v1");
        return new Response(null, { status: 204 });
      },
    });
    const section = await openSection();
    const items = await within(section).findAllByTestId("voice");
    expect(items.map((i) => i.textContent)).toEqual([expect.stringContaining("Alex · from 2 recordings"), expect.stringContaining("Blair · from 1 recording ·")]);

    fireEvent.click(within(items[1]!).getByTestId("voice-rename"));
    const input = within(section).getByTestId("voice-name");
    fireEvent.change(input, { target: { value: "Alex" } });
    fireEvent.click(within(section).getByTestId("voice-save"));
    expect(await within(section).findByText("You already have a voice with that name")).toBeInTheDocument();
    fireEvent.change(input, { target: { value: " " } });
    fireEvent.click(within(section).getByTestId("voice-save"));
    expect(await within(section).findByText("Speaker name cannot be empty")).toBeInTheDocument();
    fireEvent.change(input, { target: { value: "  Blair Smith " } });
    fireEvent.click(within(section).getByTestId("voice-save"));
    expect(await within(section).findByText("Blair Smith")).toBeInTheDocument();
    expect(sentBody(network, "PATCH", "/api/v1/voices/v2")).toEqual({ name: "Blair Smith" });

    fireEvent.click(within(within(section).getAllByTestId("voice")[0]!).getByTestId("voice-delete"));
    const dialog = await screen.findByRole("dialog", { name: "Delete the voice “Alex”?" });
    expect(dialog).toHaveTextContent("deleted for good");
    expect(network.calls).not.toContain("DELETE /api/v1/voices/v1");
    fireEvent.click(within(dialog).getByTestId("voice-delete-confirm"));
    await waitFor(() => expect(within(section).getAllByTestId("voice")).toHaveLength(1));
    expect(network.calls).toContain("DELETE /api/v1/voices/v1");
  });

  it("asks before turning the library off when voices are saved, and cancelling keeps it on", async () => {
    let enabled = true;
    const network = stubAccount({
      "GET /api/v1/voices/settings": () => json({ enabled }),
      "PUT /api/v1/voices/settings": () => {
        enabled = false;
        return json({ enabled });
      },
      "GET /api/v1/voices": () => json({ voices: enabled ? [voice("v1", "Alex")] : [] }),
    });
    const section = await openSection();
    await within(section).findAllByTestId("voice");
    fireEvent.click(within(section).getByRole("switch"));
    let dialog = await screen.findByRole("dialog", { name: "Turn the voice library off?" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(network.calls).not.toContain("PUT /api/v1/voices/settings");
    expect(within(section).getByRole("switch")).toBeChecked();

    fireEvent.click(within(section).getByRole("switch"));
    dialog = await screen.findByRole("dialog", { name: "Turn the voice library off?" });
    fireEvent.click(within(dialog).getByTestId("voice-library-off-confirm"));
    await waitFor(() => expect(within(section).getByRole("switch")).not.toBeChecked());
    expect(sentBody(network, "PUT", "/api/v1/voices/settings")).toEqual({ enabled: false });
    expect(within(section).queryByTestId("voice")).toBeNull();
  });
});

describe("a recognised speaker on the transcript page", () => {
  it("shows 'recognised' with the confidence and undoes a wrong match", async () => {
    let matched = true;
    const speakers = () => [
      matched ? { id: "S1", name: "Alex", voice_id: "v1", confidence: 0.87 } : { id: "S1", name: "S1" },
      { id: "S2", name: "S2" },
    ];
    const network = stubNetwork({
      "GET /auth/get-session": sessionAnswer(TEST_USER),
      ...billingAnswers(),
      "GET /api/v1/transcriptions/t1": () =>
        json({
          id: "t1",
          display_name: "Team meeting",
          status: "completed",
          config: { model: "whisper-base", language: "en", timestamp_granularities: ["segment"], diarize: true },
          audio_file: { file_id: "f1", file_name: "meeting.mp3" },
          result: {
            id: "r1",
            text: "Hello there. General Kenobi.",
            language: "en",
            duration: 9,
            revision: 1,
            speaker_turns: [],
            speakers: speakers(),
            segments: [
              { id: 0, start: 0, end: 4, text: " Hello there.", speaker: "S1" },
              { id: 1, start: 4, end: 9, text: " General Kenobi.", speaker: "S2" },
            ],
          },
          created_at: "2025-03-01T10:00:00.000Z",
          updated_at: "2025-03-01T10:05:00.000Z",
        }),
      "GET /api/v1/transcriptions/t1/audio-url": () => json({ url: "https://media.example/t1.mp3", expires_at: "2099-01-01T00:00:00.000Z" }),
      "DELETE /api/v1/transcriptions/t1/speakers/S1/voice": () => {
        matched = false;
        return json({ speakers: speakers() });
      },
    });
    renderApp(["/transcript/t1"]);
    const panel = await screen.findByLabelText("Speakers");
    expect(await within(panel).findByTestId("speaker-recognised")).toHaveTextContent("recognised 87%");
    expect(within(panel).queryAllByTestId("speaker-recognised")).toHaveLength(1);
    fireEvent.click(within(panel).getByRole("button", { name: "Not Alex: undo the match" }));
    await waitFor(() => expect(within(panel).queryByTestId("speaker-recognised")).toBeNull());
    expect(network.calls).toContain("DELETE /api/v1/transcriptions/t1/speakers/S1/voice");
    expect(within(panel).queryByText("Alex")).toBeNull();
  });
});
