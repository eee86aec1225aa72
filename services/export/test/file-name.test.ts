import { contentDisposition } from "@transcribe/platform";
import { describe, expect, it } from "vitest";
import { exportFileName, MAX_BASE_NAME_BYTES, safeBaseName } from "../src/domain/index.js";

/** What Windows, macOS and Linux all accept as a file name. */
function expectPortable(name: string) {
  expect(name).not.toMatch(/[<>:"/\\|?*\u0000-\u001f\u007f]/);
  expect(name).not.toMatch(/[. ]$/);
  expect(name).not.toMatch(/^[. ]/);
  expect(Buffer.byteLength(name, "utf8")).toBeLessThanOrEqual(255);
  expect(name.split(".")[0]).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)$/i);
}

describe("export file names", () => {
  it("keep non-Latin letters and add the format's extension", () => {
    expect(exportFileName("Interview: Grüße aus München / Привет / 你好 / مرحبا", "pdf")).toBe(
      "Interview_ Grüße aus München _ Привет _ 你好 _ مرحبا.pdf",
    );
    expect(exportFileName("Réunion d'équipe", "docx")).toBe("Réunion d'équipe.docx");
    for (const format of ["txt", "docx", "pdf", "srt", "vtt", "json"] as const) {
      expect(exportFileName("x", format)).toBe(`x.${format}`);
    }
  });

  it("drop the uploaded file's media extension", () => {
    expect(exportFileName("talk.mp3", "srt")).toBe("talk.srt");
    expect(exportFileName("Meeting 2024-05-06.M4A", "txt")).toBe("Meeting 2024-05-06.txt");
    expect(exportFileName("notes.v2", "txt")).toBe("notes.v2.txt");
  });

  it("remove what a file system refuses or hides", () => {
    const cases: Array<[string, string]> = [
      ['a<b>c:d"e/f\\g|h?i*j', "a_b_c_d_e_f_g_h_i_j"],
      ["line\nbreak\ttab\u0000nul\u007f", "line break tabnul"],
      ["invoice\u202Etxt.exe", "invoicetxt.exe"],
      ["  ..hidden..  ", "hidden"],
      ["trailing. . .", "trailing"],
      ["CON", "CON_"],
      ["con.backup", "con_.backup"],
      ["LPT1", "LPT1_"],
      ["Nul", "Nul_"],
      ["console", "console"],
      ["", "transcript"],
      ["   ", "transcript"],
      ["...", "transcript"],
      ["\ud800broken surrogate", "broken surrogate"],
    ];
    for (const [input, expected] of cases) {
      expect(safeBaseName(input), JSON.stringify(input)).toBe(expected);
      expectPortable(exportFileName(input, "txt"));
    }
  });

  it("cut long names between characters, within the byte limit", () => {
    const cjk = exportFileName("日本語".repeat(100), "pdf");
    expect(Buffer.byteLength(cjk.slice(0, -4), "utf8")).toBeLessThanOrEqual(MAX_BASE_NAME_BYTES);
    expect(cjk).toMatch(/^(日本語)+(日本|日)?\.pdf$/);
    const family = "👨‍👩‍👧";
    const emoji = safeBaseName(family.repeat(40));
    expect(emoji.length % family.length).toBe(0);
    expectPortable(cjk);
  });

  it("go into Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 5987)", () => {
    const header = contentDisposition(exportFileName("Grüße / Привет", "pdf"));
    expect(header).toBe(
      `attachment; filename="Gru_e _ ______.pdf"; filename*=UTF-8''${encodeURIComponent("Grüße _ Привет.pdf")}`,
    );
    expect(header).toMatch(/^[\x20-\x7e]+$/);
  });
});
