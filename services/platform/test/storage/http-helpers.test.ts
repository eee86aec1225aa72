import { describe, expect, it } from "vitest";
import { contentDisposition } from "../../src/storage/content-disposition.js";
import { parseRangeHeader, resolveByteRange } from "../../src/storage/range.js";

describe("parseRangeHeader", () => {
  it.each([
    ["bytes=0-99", { start: 0, end: 99 }],
    ["bytes=100-", { start: 100 }],
    ["bytes=-100", { suffixLength: 100 }],
    [" Bytes = 5 - 9 ", { start: 5, end: 9 }],
    ["bytes=0-99999999999999999999", { start: 0, end: Number.MAX_SAFE_INTEGER }],
  ])("reads %j", (header, expected) => {
    expect(parseRangeHeader(header)).toEqual(expected);
  });

  it.each([undefined, "", "bytes=", "bytes=-", "bytes=9-5", "bytes=0-1,5-6", "items=0-5", "bytes=a-b", "bytes=-1-2"])(
    "ignores %j (served as a whole object)",
    (header) => {
      expect(parseRangeHeader(header)).toBeUndefined();
    },
  );
});

describe("resolveByteRange", () => {
  it("clamps and resolves against the object size", () => {
    expect(resolveByteRange({ start: 0, end: 9 }, 100)).toEqual({ start: 0, end: 9 });
    expect(resolveByteRange({ start: 90, end: 500 }, 100)).toEqual({ start: 90, end: 99 });
    expect(resolveByteRange({ suffixLength: 10 }, 100)).toEqual({ start: 90, end: 99 });
    expect(resolveByteRange({ suffixLength: 1000 }, 100)).toEqual({ start: 0, end: 99 });
  });

  it("reports unsatisfiable ranges as null", () => {
    expect(resolveByteRange({ start: 100 }, 100)).toBeNull();
    expect(resolveByteRange({ suffixLength: 0 }, 100)).toBeNull();
    expect(resolveByteRange({ start: 0 }, 0)).toBeNull();
    expect(resolveByteRange({ suffixLength: 5 }, 0)).toBeNull();
    expect(resolveByteRange({ start: 5, end: 2 }, 100)).toBeNull();
  });
});

/** Pulls filename and filename* back out the way a browser would. */
function parseDisposition(header: string) {
  const plain = /filename="([^"]*)"/.exec(header)?.[1];
  const extended = /filename\*=UTF-8''([^;\s]+)/.exec(header)?.[1];
  return { plain, extended: extended === undefined ? undefined : decodeURIComponent(extended) };
}

describe("contentDisposition", () => {
  it("keeps a non-Latin name intact and gives an ASCII fallback", () => {
    const header = contentDisposition("Résumé 会议.mp3");
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(header).toBe(
      `attachment; filename="Resume __.mp3"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%E4%BC%9A%E8%AE%AE.mp3`,
    );
    expect(parseDisposition(header)).toEqual({ plain: "Resume __.mp3", extended: "Résumé 会议.mp3" });
  });

  it("uses only the plain parameter for plain ASCII names", () => {
    expect(contentDisposition("meeting notes.txt")).toBe(`attachment; filename="meeting notes.txt"`);
  });

  it.each([
    ['quote"and\\backslash.txt', 'quote_and_backslash.txt'],
    ["../../etc/passwd", ".._.._etc_passwd"],
    ["line\r\nbreak.txt", "linebreak.txt"],
    ["100%.txt", "100_.txt"],
  ])("neutralises %j", (name, plain) => {
    const header = contentDisposition(name);
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(parseDisposition(header).plain).toBe(plain);
    expect(header).not.toMatch(/[\r\n]/);
  });

  it("escapes the characters RFC 5987 forbids in filename*", () => {
    const header = contentDisposition("it's (final)*.mp3 ✓");
    expect(header).toContain("filename*=UTF-8''it%27s%20%28final%29%2A.mp3%20%E2%9C%93");
    expect(parseDisposition(header).extended).toBe("it's (final)*.mp3 ✓");
  });

  it("survives lone surrogates and empty names", () => {
    expect(contentDisposition("a\uD800b.mp3")).toContain("filename*=UTF-8''a%EF%BF%BDb.mp3");
    expect(contentDisposition("  \u0000 ")).toBe("attachment");
  });
});
