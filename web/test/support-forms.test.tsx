import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { json, meAnswer, sessionAnswer, stubNetwork, TEST_USER } from "./fake-network";
import { renderApp } from "./render-app";

describe("support and contact forms", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("/support sends subject, message and transcript reference, then confirms", async () => {
    const network = stubNetwork({
      "GET /auth/get-session": sessionAnswer(TEST_USER),
      "GET /api/v1/me": meAnswer(),
      "POST /api/v1/support": json({ ticket_id: "t1" }),
    });
    renderApp(["/support"]);
    fireEvent.change(await screen.findByLabelText("Subject"), { target: { value: "Export fails" } });
    fireEvent.change(screen.getByLabelText("Message"), { target: { value: "The PDF is empty" } });
    fireEvent.change(screen.getByLabelText("Transcript ID (optional)"), { target: { value: "abc" } });
    fireEvent.click(screen.getByRole("button", { name: "Send to support" }));
    expect(await screen.findByText(/Your message was sent/)).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe("Support | Transcribe"));
    const call = network.fetch.mock.calls.find(([input]) => String(input).endsWith("/api/v1/support"))!;
    expect(JSON.parse(String((call[1] as RequestInit).body))).toEqual({ subject: "Export fails", message: "The PDF is empty", transcription_id: "abc" });
  });

  it("/contact-us shows the server's refusal (rate limit) and keeps the form", async () => {
    stubNetwork({
      "GET /auth/get-session": sessionAnswer(null),
      "POST /api/v1/contact": json({ error: { code: "resource_exhausted", message: "Too many messages. Please try again later." } }, 429),
    });
    renderApp(["/contact-us"]);
    fireEvent.change(await screen.findByLabelText("Name"), { target: { value: "Grace" } });
    fireEvent.change(screen.getByLabelText("Email"), { target: { value: "grace@example.com" } });
    fireEvent.change(screen.getByLabelText("Message"), { target: { value: "Hello" } });
    fireEvent.click(screen.getByRole("button", { name: "Send message" }));
    expect(await screen.findByText("Too many messages. Please try again later.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send message" })).toBeInTheDocument();
  });
});
