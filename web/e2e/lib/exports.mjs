// The transcript page's export menu (decision 0007), driven as a person would: open 'Export',
// pick a format, and wait for the browser's download. Each file must arrive non-empty with
// the format's extension (the name comes from the server's Content-Disposition).
import { stat } from "node:fs/promises";

export const EXPORT_MENU_ITEMS = [
  ["txt", "Text (.txt)"],
  ["docx", "Word (.docx)"],
  ["pdf", "PDF (.pdf)"],
  ["srt", "Subtitles (.srt)"],
  ["vtt", "WebVTT (.vtt)"],
  ["json", "JSON (.json)"],
];

/** Exports every format from the transcript page `page` is on; records a check per format. */
export async function exportEachFormat(page, { check, timeout = 60_000 }) {
  const results = [];
  for (const [format, label] of EXPORT_MENU_ITEMS) {
    try {
      const trigger = page.getByRole("button", { name: "Export" });
      // The trigger shows a spinner (and is busy) while the previous export runs.
      await trigger.waitFor({ state: "visible", timeout });
      await page.waitForFunction(() => {
        const button = [...document.querySelectorAll("button")].find((b) => b.textContent?.trim() === "Export");
        return button && !button.disabled && button.getAttribute("aria-busy") !== "true";
      }, undefined, { timeout });
      await trigger.click();
      const item = page.getByRole("menuitem", { name: label });
      await item.waitFor({ state: "visible", timeout });
      const [download] = await Promise.all([page.waitForEvent("download", { timeout }), item.click()]);
      const name = download.suggestedFilename();
      const failure = await download.failure();
      const file = failure ? undefined : await download.path();
      const size = file ? (await stat(file)).size : 0;
      results.push({ format, name, size });
      check(`export ${format}: a non-empty .${format} file downloads`, !failure && name.toLowerCase().endsWith(`.${format}`) && size > 0, `${name}, ${size} bytes${failure ? `, ${failure}` : ""}`);
    } catch (error) {
      check(`export ${format}: a non-empty .${format} file downloads`, false, error?.message ?? String(error));
    }
  }
  return results;
}
