import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors.js";
import { assertValidKey, assertValidKeyPrefix, MAX_KEY_LENGTH } from "../../src/storage/keys.js";

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : "not an AppError";
  }
}

describe("assertValidKey", () => {
  it.each([
    "a",
    "users/42/uploads/0f8fad5b-d9cb-469f-a165-70867728950e.mp3",
    "A-Z_a-z.0-9",
    ".hidden",
    "..a",
    "a/b/c/d/e/f",
    "x".repeat(200),
    `${`${"x".repeat(200)}/`.repeat(5).slice(0, MAX_KEY_LENGTH - 1)}y`,
  ])("accepts %j", (key) => {
    expect(codeOf(() => assertValidKey(key))).toBeUndefined();
  });

  it.each([
    ["empty", ""],
    ["parent", ".."],
    ["current", "."],
    ["parent segment", "a/../b"],
    ["escaping", "a/../../x"],
    ["leading parent", "../x"],
    ["current segment", "a/./b"],
    ["absolute", "/etc/passwd"],
    ["backslash", "a\\b"],
    ["windows traversal", "..\\x"],
    ["empty segment", "a//b"],
    ["trailing slash", "a/"],
    ["NUL", "a\0b"],
    ["percent-encoding", "%2e%2e/x"],
    ["space", "a b"],
    ["non-ASCII", "résumé.mp3"],
    ["tilde (reserved for auxiliary files)", "a~meta.json"],
    ["colon", "C:x"],
    ["trailing dot", "a."],
    ["too long", "x".repeat(MAX_KEY_LENGTH + 1)],
    ["segment too long", "x".repeat(201)],
  ])("refuses %s", (_name, key) => {
    expect(codeOf(() => assertValidKey(key))).toBe("invalid_argument");
  });

  it.each([undefined, null, 42, ["a"]])("refuses the non-string %j", (key) => {
    expect(codeOf(() => assertValidKey(key))).toBe("invalid_argument");
  });
});

describe("assertValidKeyPrefix", () => {
  it.each(["users/42/", "users/42", "users/4", "a/b.", "a/.h", "x"])("accepts %j", (prefix) => {
    expect(codeOf(() => assertValidKeyPrefix(prefix))).toBeUndefined();
  });

  it.each(["", "/", "../", "a/../", "a/..", "a/.", "/a", "a//", "a\\", "%2e%2e/"])("refuses %j", (prefix) => {
    expect(codeOf(() => assertValidKeyPrefix(prefix))).toBe("invalid_argument");
  });
});
