import { screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sessionAnswer, stubNetwork } from "./fake-network";
import { renderApp } from "./render-app";

describe("home page", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows both tiers to a visitor without a session", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(null) });
    renderApp(["/"]);
    const pricing = await screen.findByRole("region", { name: "Pricing" });
    expect(within(pricing).getByRole("heading", { name: "Free" })).toBeTruthy();
    expect(within(pricing).getByRole("heading", { name: "Premium" })).toBeTruthy();
    expect(within(pricing).getByText("A trial allowance of audio minutes, set by this server")).toBeTruthy();
  });
});
