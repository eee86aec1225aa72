// Account Settings → Vocabulary against a fake of the network only, and the text format.
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { formatVocabulary, parseVocabulary } from "../src/features/account/vocabulary-text";
import { sentBody } from "./auth-screens-helpers";
import { json, sessionAnswer, stubNetwork, TEST_USER } from "./fake-network";
import { renderApp } from "./render-app";

describe("vocabulary text file", () => {
  it("reads a term a line with what it sounds like and its language, and writes it back the same", () => {
    const text = "# names\nEyeLink | eye link, I link\n\nZürich | zurich | de\nReal Reaction";
    const terms = parseVocabulary(text);
    expect(terms).toEqual([{ term: "EyeLink", soundsLike: ["eye link", "I link"] }, { term: "Zürich", soundsLike: ["zurich"], language: "de" }, { term: "Real Reaction" }]);
    expect(formatVocabulary(terms)).toBe("EyeLink | eye link, I link\nZürich | zurich | de\nReal Reaction");
    expect(formatVocabulary([{ term: "Kyiv", language: "uk" }])).toBe("Kyiv |  | uk");
    expect(parseVocabulary("Kyiv |  | uk")).toEqual([{ term: "Kyiv", language: "uk" }]);
  });
});

describe("Account Settings → Vocabulary", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows the saved terms, saves the edited list and shows the server's refusal as is", async () => {
    const network = stubNetwork({
      "GET /auth/get-session": () => (sessionAnswer(TEST_USER) as () => Response)(),
      "GET /auth/list-accounts": () => json([]),
      "GET /auth/list-sessions": () => json([]),
      "GET /api/v1/vocabulary": () => json({ terms: [{ term: "EyeLink", sounds_like: ["eye link"] }] }),
    });
    renderApp(["/account"]);
    const section = await screen.findByTestId("account-vocabulary");
    const text = within(section).getByLabelText("Terms") as HTMLTextAreaElement;
    await waitFor(() => expect(text.value).toBe("EyeLink | eye link"));

    network.answer("PUT /api/v1/vocabulary", () => json({ error: { code: "invalid_argument", message: "Too many vocabulary terms (max 500)" } }, 400));
    fireEvent.change(text, { target: { value: "EyeLink | eye link\nReal Reaction" } });
    fireEvent.click(within(section).getByRole("button", { name: "Save vocabulary" }));
    expect(await within(section).findByText("Too many vocabulary terms (max 500)")).toBeInTheDocument();

    network.answer("PUT /api/v1/vocabulary", () => json({ terms: [{ term: "EyeLink", sounds_like: ["eye link"] }, { term: "Real Reaction" }] }));
    fireEvent.click(within(section).getByRole("button", { name: "Save vocabulary" }));
    await waitFor(() => expect(within(section).queryByText("Too many vocabulary terms (max 500)")).toBeNull());
    expect(sentBody(network, "PUT", "/api/v1/vocabulary")).toEqual({ terms: [{ term: "EyeLink", sounds_like: ["eye link"] }, { term: "Real Reaction" }] });
  });
});
