#!/usr/bin/env node
// Browser check of the screens' polish (decision 0021): at phone width (375×740), in the light
// and the dark theme, the dashboard, the upload/start form and the transcript page do not
// scroll sideways, their controls are in reach, and text on them has readable contrast
// (WCAG AA 4.5:1 from the computed colours). The language combobox works by keyboard alone:
// arrow opens it, typing filters by name or code, arrows move, Enter picks, Escape closes
// without changing the value, and focus returns to the trigger. Screenshots go to the
// directory given (or a temp dir, printed) for a person to look at.
// Usage: node web/e2e/layout.mjs <base-url> <mail-catcher-url> [screenshot-dir]
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chooseInSelect } from "./lib/controls.mjs";
import { checklist, launchBrowser, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { journeyArgs, PROCESSING_TIMEOUT_MS, TIMEOUT_MS, transcriptionRow, waitForFinalStatus } from "./lib/journey.mjs";
import { espeakNgSync, FFMPEG } from "./lib/media-tools.mjs";

const { baseUrl, mailUrl, screenshotDir: screenshotArg } = journeyArgs(import.meta.url);

const THEMES = ["light", "dark"];
const { check, report } = checklist();
const email = randomEmail("layout");
const workDir = await mkdtemp(path.join(os.tmpdir(), "e2e-layout-"));
const screenshotDir = screenshotArg ?? (await mkdtemp(path.join(os.tmpdir(), "e2e-layout-shots-")));
const displayName = `layout-${Date.now()}`;
const audioPath = path.join(workDir, `${displayName}.mp3`);
const browser = await launchBrowser();

/** Horizontal overflow, and the controls (buttons, links, inputs, comboboxes) that end outside the viewport. */
function measure() {
  const width = window.innerWidth;
  const outside = [];
  for (const element of document.querySelectorAll("main button, main a, main input, main [role=combobox], main audio")) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    // Inside a sideways-scrolling table is reachable by design.
    if (element.closest(".table-wrap")) continue;
    if (box.right > width + 1 || box.left < -1) outside.push(`${element.tagName.toLowerCase()} "${(element.textContent || element.getAttribute("aria-label") || "").trim().slice(0, 30)}" ${Math.round(box.left)}–${Math.round(box.right)}`);
  }
  // What sticks out past the right edge, outside any scroller: the culprits of an overflow.
  const wide = [];
  for (const element of document.body.querySelectorAll("*")) {
    const box = element.getBoundingClientRect();
    if (box.right <= width + 1 || box.width === 0) continue;
    let clipped = false;
    for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
      if (getComputedStyle(node).overflowX !== "visible" && node.contains(element)) {
        const scroller = node.getBoundingClientRect();
        if (scroller.right <= width + 1) clipped = getComputedStyle(element).position !== "absolute" || getComputedStyle(node).position !== "static";
        if (clipped) break;
      }
    }
    if (!clipped) wide.push(`${element.tagName.toLowerCase()}.${[...element.classList].join(".")} →${Math.round(box.right)}`);
  }
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth: width, outside, wide: wide.slice(0, 5) };
}

/** Text elements whose colour on their effective background is under 4.5:1. */
function lowContrast() {
  const parse = (colour) => {
    const m = colour.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const luminance = ({ r, g, b }) => {
    const channel = (v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  const background = (element) => {
    for (let node = element; node; node = node.parentElement) {
      const colour = parse(getComputedStyle(node).backgroundColor);
      if (colour && colour.a > 0.5) return colour;
    }
    return parse(getComputedStyle(document.body).backgroundColor);
  };
  const bad = [];
  const selector = "h1, h2, h3, p, label, dt, dd, th, td, button, a, [role=combobox], [role=option], .badge, .segment-text";
  for (const element of document.querySelectorAll(selector)) {
    if (!element.textContent?.trim() || element.closest("[aria-hidden=true], .visually-hidden")) continue;
    const style = getComputedStyle(element);
    if (style.visibility === "hidden" || style.display === "none" || Number(style.opacity) < 1) continue;
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (element.matches(":disabled, [aria-disabled=true]")) continue;
    const fg = parse(style.color);
    const bg = background(element);
    if (!fg || !bg) continue;
    const [l1, l2] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    if (ratio < 4.5) bad.push(`${element.tagName.toLowerCase()} "${element.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
  }
  return bad;
}

try {
  const wavPath = path.join(workDir, "speech.wav");
  espeakNgSync(["-w", wavPath, "This recording checks that the screens fit a phone. The transcript page must not scroll sideways."]);
  execFileSync(FFMPEG, ["-hide_banner", "-loglevel", "error", "-y", "-i", wavPath, "-codec:a", "libmp3lame", "-b:a", "96k", audioPath]);

  const context = await browser.newContext({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await mkdir(screenshotDir, { recursive: true });
  const shot = (name, fullPage = true) => page.screenshot({ path: path.join(screenshotDir, `layout-${name}.png`), fullPage });
  const setTheme = async (theme) => {
    await page.evaluate((value) => window.localStorage.setItem("vite-ui-theme", value), theme);
    await page.reload();
    await page.locator(`html.${theme}`).waitFor({ state: "attached", timeout: TIMEOUT_MS });
  };
  /** Overflow, reach and contrast of the current screen in both themes, with screenshots. */
  const checkScreen = async (screen, ready) => {
    for (const theme of THEMES) {
      await setTheme(theme);
      await ready();
      const { scrollWidth, innerWidth, outside, wide } = await page.evaluate(measure);
      check(`${screen} (${theme}, 375 px): no horizontal overflow`, scrollWidth <= innerWidth, `scrollWidth ${scrollWidth}, innerWidth ${innerWidth}${wide.length ? `; ${wide.join(", ")}` : ""}`);
      check(`${screen} (${theme}): every control is inside the screen`, outside.length === 0, outside.join("; "));
      const bad = await page.evaluate(lowContrast);
      check(`${screen} (${theme}): text contrast at least 4.5:1`, bad.length === 0, bad.slice(0, 6).join("; "));
      await shot(`${screen}-${theme}`);
    }
  };

  await signInThroughUi(page, { baseUrl, mailUrl, email, startPath: "/dashboard", check, timeout: TIMEOUT_MS });
  const heading = page.getByRole("heading", { level: 1, name: "Your Transcriptions" });
  await checkScreen("dashboard-empty", async () => {
    await heading.waitFor({ timeout: TIMEOUT_MS });
    await page.getByText("No transcriptions yet", { exact: false }).first().waitFor({ timeout: TIMEOUT_MS }).catch(() => {});
  });

  await page.getByTestId("file-input").setInputFiles(audioPath);
  const startForm = page.getByRole("form", { name: "Start transcription" });
  if (!check("the upload is processed and the start form shown", await visible(startForm, PROCESSING_TIMEOUT_MS))) throw new Error("not processed");

  // A multilingual model, so the language list is Whisper's ~100.
  const catalog = await page.evaluate(async () => (await fetch("/api/v1/models", { credentials: "include" })).json());
  const multilingual = catalog.models?.find((m) => m.available && m.languages.length > 50);
  if (!check("a multilingual model is available", Boolean(multilingual))) throw new Error("no multilingual model");
  await chooseInSelect(page, startForm, "Model", multilingual.name);

  // The language combobox by keyboard only.
  const language = startForm.getByRole("combobox", { name: "Language", exact: true });
  const search = page.getByRole("combobox", { name: /^Search/ });
  await language.focus();
  await page.keyboard.press("ArrowDown");
  check("ArrowDown on the language opens its searchable list", await visible(search, TIMEOUT_MS));
  const searchFocused = await search.evaluate((element) => element === document.activeElement);
  check("the search box has the focus", searchFocused);
  const total = await page.getByRole("listbox").getByRole("option").count();
  check("the list holds the model's languages (~100)", total >= 90, `${total} options`);
  await page.keyboard.type("germ");
  const first = ((await page.getByRole("listbox").getByRole("option").first().textContent()) ?? "").trim();
  check("typing 'germ' filters to German first", first.startsWith("German"), first);
  await shot("combobox-open", false);
  await page.keyboard.press("Escape");
  await search.waitFor({ state: "hidden", timeout: TIMEOUT_MS });
  check("Escape closes it and leaves the value alone", ((await language.textContent()) ?? "").includes("Select a language"));
  check("and focus is back on the trigger", await language.evaluate((element) => element === document.activeElement));
  await page.keyboard.press("Enter");
  await search.waitFor({ timeout: TIMEOUT_MS });
  await page.keyboard.type("ja");
  await page.keyboard.press("Enter");
  await search.waitFor({ state: "hidden", timeout: TIMEOUT_MS });
  check("typing a code ('ja') and Enter picks Japanese", ((await language.textContent()) ?? "").trim() === "Japanese (ja)", (await language.textContent()) ?? "");
  await language.focus();
  await page.keyboard.type("engl");
  await search.waitFor({ timeout: TIMEOUT_MS });
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Enter");
  check("typing on the closed trigger opens the search with those letters; English picked", ((await language.textContent()) ?? "").trim() === "English (en)", (await language.textContent()) ?? "");

  // The start form at phone width, in both themes (switched in place: a reload would drop the processed file).
  const form = await page.evaluate(measure);
  check("start form (375 px): no horizontal overflow", form.scrollWidth <= form.innerWidth, `scrollWidth ${form.scrollWidth}`);
  check("start form: every control is inside the screen", form.outside.length === 0, form.outside.join("; "));
  const startButton = startForm.getByRole("button", { name: "Start transcription" });
  const [buttonBox, formBox] = [await startButton.boundingBox(), await startForm.boundingBox()];
  check("the start button sits inside the form's grid", Boolean(buttonBox && formBox && buttonBox.x >= formBox.x - 1 && buttonBox.x + buttonBox.width <= formBox.x + formBox.width + 1));
  for (const theme of THEMES) {
    await page.evaluate((value) => {
      document.documentElement.classList.remove("light", "dark");
      document.documentElement.classList.add(value);
    }, theme);
    // Colours ease over 120 ms; measure the settled ones.
    await page.waitForTimeout(400);
    const bad = await page.evaluate(lowContrast);
    check(`start form (${theme}): text contrast at least 4.5:1`, bad.length === 0, bad.slice(0, 6).join("; "));
    await shot(`start-form-${theme}`);
  }
  // On a desktop the model and language sit side by side and the button lines up with them.
  await page.setViewportSize({ width: 1280, height: 900 });
  const [modelBox, languageBox, wideButtonBox] = await Promise.all([
    startForm.getByRole("combobox", { name: "Model", exact: true }).boundingBox(),
    language.boundingBox(),
    startButton.boundingBox(),
  ]);
  check(
    "desktop: model and language share a row, the start button aligned with the model's left edge",
    Boolean(modelBox && languageBox && wideButtonBox && Math.abs(modelBox.y - languageBox.y) < 2 && languageBox.x > modelBox.x && Math.abs(wideButtonBox.x - modelBox.x) < 2),
    JSON.stringify({ modelBox, languageBox, wideButtonBox }),
  );
  await startForm.screenshot({ path: path.join(screenshotDir, "layout-start-form-desktop.png") });
  await page.setViewportSize({ width: 375, height: 740 });
  const tiny = catalog.models?.find((m) => m.id === "whisper-tiny.en" && m.available);
  if (tiny) await chooseInSelect(page, startForm, "Model", tiny.name);
  await startButton.click();

  const row = transcriptionRow(page, displayName);
  if (!check("after starting, the file is listed", await visible(row.first(), TIMEOUT_MS))) throw new Error("not listed");
  const { status } = await waitForFinalStatus(page, row);
  check("the transcription completes", status === "Completed", status);
  await checkScreen("dashboard-list", () => row.first().waitFor({ timeout: TIMEOUT_MS }));

  await row.first().getByRole("link").click();
  await page.waitForURL((url) => url.pathname.startsWith("/transcript/"), { timeout: TIMEOUT_MS });
  await checkScreen("transcript", () => page.locator("ol.segments > li").first().waitFor({ timeout: TIMEOUT_MS }));

  // The speed Select by keyboard.
  const speed = page.getByRole("combobox", { name: "Speed", exact: true });
  await speed.focus();
  await page.keyboard.press("Enter");
  await page.getByRole("listbox").waitFor({ timeout: TIMEOUT_MS });
  // Radix moves focus to the chosen option once the list is placed; keys before that are lost.
  const focusedOption = (name) =>
    page.waitForFunction((text) => document.activeElement?.getAttribute("role") === "option" && document.activeElement.textContent?.trim() === text, name, { timeout: TIMEOUT_MS });
  await focusedOption("1×");
  // Radix may focus the chosen option again once the list is positioned; let it settle, as a person's pause would.
  await page.waitForTimeout(300);
  await shot("speed-open", false);
  await page.keyboard.press("ArrowDown");
  await focusedOption("1.25×");
  await page.keyboard.press("Enter");
  await page.getByRole("listbox").waitFor({ state: "hidden", timeout: TIMEOUT_MS });
  const rate = await page.getByTestId("transcript-audio").evaluate((element) => element.playbackRate);
  check("the speed select works by keyboard (one step faster)", rate === 1.25, `playbackRate ${rate}, shows ${(await speed.textContent())?.trim()}`);

  check("no uncaught page errors", pageErrors.length === 0, pageErrors.join(" | "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser.close();
  await rm(workDir, { recursive: true, force: true });
}

console.log(`# screenshots: ${screenshotDir}`);
process.exit(report(`layout: ${baseUrl} (mail catcher ${mailUrl}), ${email}`));
