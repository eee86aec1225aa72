#!/usr/bin/env node
// Browser acceptance of billing (decision 0013) against a running stack whose billing service has
// Stripe keys pointing at stripe-mock: a new user sees the free plan and the upgrade button
// (which leaves for Stripe Checkout); once at the free limit, starting a transcription is
// refused with the server's message; after a webhook signed by Stripe's own SDK
// (generateTestHeaderString) marks the user premium, the same upload is accepted. Then the
// return from checkout (?subscription=success) thanks the user and shows premium, and
// Account Settings shows the plan with 'Manage billing' (the Stripe portal).
// A forged webhook (wrong secret) changes nothing.
//
// Usage: node web/e2e/billing.mjs <base-url> <mail-catcher-url> [screenshot-dir]
// Env: BILLING_DATABASE_URL (the billing service's database: the test puts the user at the
// limit there), STRIPE_WEBHOOK_SECRET (as given to the billing service).
// ffmpeg and espeak-ng: lib/media-tools.mjs. CHROMIUM_PATH overrides the browser binary.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { checklist, launchBrowser, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { chooseInCombobox } from "./lib/controls.mjs";
import { espeakNgSync, FFMPEG } from "./lib/media-tools.mjs";
import { openJourneyPage } from "./lib/journey.mjs";

const [baseUrl, mailUrl, screenshotDir] = process.argv.slice(2);
const databaseUrl = process.env.BILLING_DATABASE_URL;
const webhookSecret = process.env.STRIPE_WEBHOOK_SECRET;
if (!baseUrl || !mailUrl || !databaseUrl || !webhookSecret) {
  console.error("usage: BILLING_DATABASE_URL=… STRIPE_WEBHOOK_SECRET=… node web/e2e/billing.mjs <base-url> <mail-catcher-url>");
  process.exit(2);
}

// Stripe's SDK is the billing service's dependency; the signature comes from it, not from us.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const Stripe = createRequire(path.join(repoRoot, "services/billing/package.json"))("stripe");
const stripe = new Stripe("sk_test_e2e");

const TIMEOUT_MS = Number(process.env.E2E_TIMEOUT_MS ?? 20_000);
const PROCESSING_TIMEOUT_MS = Number(process.env.E2E_PROCESSING_TIMEOUT_MS ?? 120_000);
const { check, report } = checklist();
const email = randomEmail("billing");
const workDir = await mkdtemp(path.join(os.tmpdir(), "e2e-billing-"));
const fileName = `e2e-billing-${Date.now()}.mp3`;
const audioPath = path.join(workDir, fileName);
const browser = await launchBrowser();

/** POSTs a Stripe event to the BFF's webhook route as Stripe would: raw JSON, signed. */
async function sendWebhook(event, secret = webhookSecret) {
  const payload = JSON.stringify({ id: `evt_e2e_${Date.now()}_${Math.random().toString(36).slice(2)}`, object: "event", ...event });
  const response = await fetch(`${baseUrl}/api/v1/billing/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": stripe.webhooks.generateTestHeaderString({ payload, secret }) },
    body: payload,
  });
  return { status: response.status, body: await response.text() };
}

try {
  espeakNgSync(["-w", path.join(workDir, "speech.wav"), "This short recording is used to check the free plan's limit."]);
  execFileSync(FFMPEG, ["-hide_banner", "-loglevel", "error", "-y", "-i", path.join(workDir, "speech.wav"), "-codec:a", "libmp3lame", "-b:a", "96k", audioPath]);

  const { context, page, pageErrors, shot } = await openJourneyPage(browser, { journey: "billing", screenshotDir, fullPage: true });
  // Stripe's hosted pages are not reachable from here: record where the app sends the
  // browser and answer with a stub page.
  const stripeVisits = [];
  await context.route(/^https:\/\/[^/]*stripe\.(com|me)\//, (route) => {
    stripeVisits.push(route.request().url());
    return route.fulfill({ status: 200, contentType: "text/html", body: "<title>Stripe</title><p>Stripe page</p>" });
  });

  await signInThroughUi(page, { baseUrl, mailUrl, email, startPath: "/dashboard", check, timeout: TIMEOUT_MS });
  // The link may land on another host name of the same server (localhost vs 127.0.0.1): stay where the session is.
  const origin = new URL(page.url()).origin;
  const plan = page.getByTestId("plan-card");
  check("the dashboard shows the plan card", await visible(plan, TIMEOUT_MS));
  check("a new user is on the free plan", (await plan.getByTestId("plan-tier").textContent()) === "Free");
  const limits = await page.evaluate(() => fetch("/api/v1/trial-limits").then((r) => r.json()));
  const left = page.getByTestId("plan-trial-left");
  check(
    "it shows the minutes used and left",
    await visible(left.getByText(`0 minutes of ${limits.total_limit} minutes used`, { exact: false }), TIMEOUT_MS),
    (await left.textContent()) ?? "",
  );
  check("it shows this month's and all-time usage", await visible(page.getByTestId("plan-usage"), TIMEOUT_MS));

  // The upgrade button goes to Stripe Checkout (stripe-mock's session URL).
  await plan.getByTestId("plan-upgrade").click();
  await page.waitForURL(/stripe\.(com|me)/, { timeout: TIMEOUT_MS }).catch(() => undefined);
  check("'Upgrade to premium' leaves for Stripe Checkout", stripeVisits.length === 1, stripeVisits.join(", "));

  // Back from the stub page; then put the user exactly at the free limit: settled usage as
  // the billing service records it.
  await page.goto(`${origin}/dashboard`);
  const me = await page.evaluate(() => fetch("/api/v1/me").then((r) => r.json()));
  const userId = me.id;
  check("the signed-in user's id is known", typeof userId === "string" && userId.length > 0, JSON.stringify(me).slice(0, 120));
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO billing_usage (job_id, user_id, state, minutes, audio_seconds, settled_at) VALUES ($1, $2, 'settled', $3, $4, now())`,
      [`e2e-${userId}`, userId, limits.total_limit, limits.total_limit * 60],
    );
  } finally {
    await db.end();
  }

  await page.goto(`${origin}/dashboard`);
  check("at the limit the plan card says so", await visible(page.getByTestId("plan-at-limit"), TIMEOUT_MS));
  check(
    "and shows 0 minutes left",
    await visible(page.getByTestId("plan-trial-left").getByText("0 minutes left", { exact: false }), TIMEOUT_MS),
  );

  await page.getByTestId("file-input").setInputFiles(audioPath);
  const startForm = page.getByRole("form", { name: "Start transcription" });
  check("the upload is processed and ready to start", await visible(startForm, PROCESSING_TIMEOUT_MS));
  await chooseInCombobox(page, startForm, "Language", "English");
  const startButton = startForm.getByRole("button", { name: "Start transcription" });
  await startButton.click();
  const refusal = page.getByTestId("trial-limit-refusal");
  check("starting is refused with the trial-limit message", await visible(refusal, TIMEOUT_MS));
  const refusalText = (await refusal.textContent()) ?? "";
  check(
    "the message says what is used, what is left and how to upgrade",
    refusalText.includes(`used ${limits.total_limit} of your ${limits.total_limit} free minutes`) && refusalText.includes("0 left") && refusalText.includes("Upgrade to premium"),
    refusalText,
  );
  await shot("refused");
  check("the refusal offers the upgrade button", await visible(refusal.getByTestId("trial-limit-upgrade"), TIMEOUT_MS));

  const checkout = {
    type: "checkout.session.completed",
    data: { object: { id: `cs_e2e_${Date.now()}`, object: "checkout.session", client_reference_id: userId, customer: `cus_e2e_${Date.now()}`, subscription: `sub_e2e_${Date.now()}`, amount_total: 1200, currency: "usd" } },
  };
  const forged = await sendWebhook(checkout, "whsec_forged");
  check("a forged webhook is refused", forged.status >= 400 && forged.status < 500, `${forged.status} ${forged.body}`);
  const startAnswer = async () => {
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/transcriptions" && r.request().method() === "POST", { timeout: TIMEOUT_MS }),
      startButton.click(),
    ]);
    return response.status();
  };
  const again = await startAnswer();
  check("after it, starting is still refused (402)", again === 402 && (await visible(refusal, TIMEOUT_MS)), String(again));

  const signed = await sendWebhook(checkout);
  check("a webhook signed with Stripe's SDK is accepted", signed.status === 200, `${signed.status} ${signed.body}`);
  const accepted = await startAnswer();
  check("after it, the same upload is accepted", accepted >= 200 && accepted < 300, String(accepted));
  const row = page.locator("section.transcriptions table").getByText(fileName.replace(/\.mp3$/, ""), { exact: false });
  check("and listed", await visible(row.first(), TIMEOUT_MS));
  check("and the refusal is gone", !(await refusal.isVisible()));

  // Stripe's return link: the thank-you toast, the parameter dropped, the plan premium.
  await page.goto(`${origin}/dashboard?subscription=success`);
  check("the return from checkout shows a success toast", await visible(page.getByText("Thank you for subscribing!", { exact: false }).first(), TIMEOUT_MS));
  await page.waitForURL((url) => !url.search.includes("subscription"), { timeout: TIMEOUT_MS }).catch(() => undefined);
  check("the subscription parameter is dropped from the address", !page.url().includes("subscription="), page.url());
  check("the plan card shows premium", await visible(page.getByTestId("plan-tier").getByText("Premium", { exact: true }), TIMEOUT_MS));
  await shot("premium");

  await page.goto(`${origin}/account`);
  const section = page.getByTestId("account-plan");
  check("Account Settings shows the plan", await visible(section.getByTestId("account-plan-tier").getByText("Premium", { exact: true }), TIMEOUT_MS));
  check("with the subscription's status", await visible(section.getByTestId("account-plan-status"), TIMEOUT_MS));
  await shot("account");
  const portal = section.getByTestId("account-plan-portal");
  check("and 'Manage billing'", await visible(portal, TIMEOUT_MS));
  const before = stripeVisits.length;
  await portal.click();
  await page.waitForURL(/stripe\.(com|me)/, { timeout: TIMEOUT_MS }).catch(() => undefined);
  check("'Manage billing' leaves for the Stripe billing portal", stripeVisits.length === before + 1, stripeVisits.slice(before).join(", "));

  check("no uncaught page errors", pageErrors.length === 0, pageErrors.join(" | "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser.close();
  await rm(workDir, { recursive: true, force: true });
}

process.exit(report(`billing: ${baseUrl} (mail catcher ${mailUrl}), ${email}`));
