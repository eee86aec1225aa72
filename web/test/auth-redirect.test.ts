import { afterEach, describe, expect, it, vi } from "vitest";
import {
  AUTH_REDIRECT_STORAGE_KEY,
  consumeAuthRedirect,
  postSignInDestination,
  safeRedirectPath,
  saveAuthRedirect,
} from "../src/lib/auth-redirect";

const UNSAFE = [
  "//evil.com",
  "//evil.com/dashboard",
  "https://evil.com",
  "https://evil.com/dashboard",
  "http:evil.com",
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  "/\\evil.com",
  "/\t/evil.com",
  "/\n/evil.com",
  "dashboard",
  "",
];

describe("auth redirect", () => {
  afterEach(() => vi.restoreAllMocks());

  it("uses the 'auth-redirect' key", () => {
    expect(AUTH_REDIRECT_STORAGE_KEY).toBe("auth-redirect");
  });

  it("saves a path and gives it back once", () => {
    saveAuthRedirect("/dashboard?x=1#top");
    expect(window.localStorage.getItem("auth-redirect")).toBe("/dashboard?x=1#top");

    expect(consumeAuthRedirect()).toBe("/dashboard?x=1#top");
    expect(window.localStorage.getItem("auth-redirect")).toBeNull();
    expect(consumeAuthRedirect()).toBeUndefined();
  });

  it.each(UNSAFE)("refuses to follow %j read from storage, and still removes it", (value) => {
    window.localStorage.setItem(AUTH_REDIRECT_STORAGE_KEY, value);
    expect(consumeAuthRedirect()).toBeUndefined();
    expect(window.localStorage.getItem(AUTH_REDIRECT_STORAGE_KEY)).toBeNull();
  });

  it.each(UNSAFE)("does not save %j", (value) => {
    saveAuthRedirect(value);
    expect(window.localStorage.getItem(AUTH_REDIRECT_STORAGE_KEY)).toBeNull();
  });

  it("accepts same-origin paths only", () => {
    expect(safeRedirectPath("/")).toBe("/");
    expect(safeRedirectPath("/transcript/abc?tab=text")).toBe("/transcript/abc?tab=text");
    expect(safeRedirectPath(undefined)).toBeUndefined();
    expect(safeRedirectPath(42)).toBeUndefined();
  });

  it("tolerates storage that throws", () => {
    vi.spyOn(Storage.prototype, "setItem").mockImplementation(() => {
      throw new DOMException("quota", "QuotaExceededError");
    });
    vi.spyOn(Storage.prototype, "getItem").mockImplementation(() => {
      throw new DOMException("denied", "SecurityError");
    });
    expect(() => saveAuthRedirect("/dashboard")).not.toThrow();
    expect(consumeAuthRedirect()).toBeUndefined();
  });

  it("sends a signed-in user to the saved page, else to the dashboard", () => {
    saveAuthRedirect("/account");
    expect(postSignInDestination()).toBe("/account");
    expect(postSignInDestination()).toBe("/dashboard");
    window.localStorage.setItem(AUTH_REDIRECT_STORAGE_KEY, "https://evil.com");
    expect(postSignInDestination()).toBe("/dashboard");
  });
});
