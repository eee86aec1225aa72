#!/usr/bin/env node
import { checklist, launchBrowser, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { journeyArgs, openJourneyPage, TIMEOUT_MS } from "./lib/journey.mjs";

const { baseUrl, mailUrl, screenshotDir } = journeyArgs(import.meta.url);

const { check, report } = checklist();
const email = randomEmail("accounts");
const newName = `Ada Tester ${Math.random().toString(36).slice(2, 6)}`;
const browser = await launchBrowser();

try {
  const { page, pageErrors, shot } = await openJourneyPage(browser, { journey: "accounts", screenshotDir, contextOptions: { viewport: { width: 1280, height: 860 } } });

  const { origin } = await signInThroughUi(page, { baseUrl, mailUrl, email, startPath: "/account", check, timeout: TIMEOUT_MS });
  const heading = await visible(page.getByRole("heading", { level: 1, name: "Account Settings" }), TIMEOUT_MS);
  check("the saved target /account shows 'Account Settings'", heading);
  await shot("account");

  const nameInput = page.getByTestId("account-name");
  await nameInput.waitFor({ timeout: TIMEOUT_MS });
  await nameInput.fill(newName);
  await page.getByTestId("account-name-save").click();
  const saved = await visible(page.locator("[data-sonner-toast]").getByText("Name saved", { exact: true }), TIMEOUT_MS);
  check("saving the name confirms 'Name saved'", saved);

  const menu = page.getByTestId("user-menu");
  const shown = await menu
    .filter({ hasText: newName })
    .waitFor({ timeout: TIMEOUT_MS })
    .then(() => true)
    .catch(() => false);
  check("the user menu shows the new name", shown, (await menu.textContent()) ?? "");
  check("the user menu shows the avatar", await visible(menu.getByTestId("user-avatar"), TIMEOUT_MS));

  // The name is stored, not only in the page: a reload shows it again.
  await page.reload({ waitUntil: "domcontentloaded" });
  const kept = await page.getByTestId("user-menu").filter({ hasText: newName }).waitFor({ timeout: TIMEOUT_MS }).then(() => true).catch(() => false);
  check("after a reload the menu still shows the name", kept);
  check("and the name field holds it", (await page.getByTestId("account-name").inputValue().catch(() => "")) === newName);

  await page.getByTestId("user-menu").click();
  const signOut = page.getByTestId("user-menu-sign-out");
  check("the user menu offers Account settings and Sign out", (await visible(signOut, TIMEOUT_MS)) && (await page.getByTestId("user-menu-account").isVisible()));
  await signOut.click();
  const signedOut = await page
    .getByTestId("user-menu")
    .waitFor({ state: "detached", timeout: TIMEOUT_MS })
    .then(() => true)
    .catch(() => false);
  check("signing out removes the user menu", signedOut, page.url());

  await page.goto(new URL("/dashboard", origin).toString(), { waitUntil: "domcontentloaded" });
  const gated = await page
    .waitForURL((url) => url.pathname === "/" && url.searchParams.get("redirect") === "/dashboard", { timeout: TIMEOUT_MS })
    .then(() => true)
    .catch(() => false);
  check("after sign-out /dashboard sends to / (redirect=%2Fdashboard)", gated && page.url().includes("redirect=%2Fdashboard"), page.url());
  check("and the sign-in form is visible", await visible(page.getByTestId("sign-in-email"), TIMEOUT_MS));
  await shot("signed-out");

  check("no uncaught page errors", pageErrors.length === 0, pageErrors.join(" | "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser.close();
}

process.exit(report(`accounts: ${baseUrl} (mail catcher ${mailUrl}), ${email}`));
