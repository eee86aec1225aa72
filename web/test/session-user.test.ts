import { describe, expect, it } from "vitest";
import { avatar, displayName, initials } from "../src/lib/session/user";

const email = "grace@example.com";

describe("initials", () => {
  it("uses the e-mail's first letter, uppercased, when the name contains '@'", () => {
    expect(initials({ name: "zed@example.com", email })).toBe("G");
  });

  it("uses the first letter of a single-word name", () => {
    expect(initials({ name: "Grace", email: "x@example.com" })).toBe("G");
    expect(initials({ name: "grace", email: "x@example.com" })).toBe("G");
  });

  it("uses the first letters of the first and last words of a longer name, uppercased", () => {
    expect(initials({ name: "grace brewster hopper", email: "x@example.com" })).toBe("GH");
    expect(initials({ name: "Ada Lovelace", email: "x@example.com" })).toBe("AL");
  });

  it("ignores extra spaces around and between the words", () => {
    expect(initials({ name: "  grace   hopper  ", email: "x@example.com" })).toBe("GH");
    expect(initials({ name: "\tgrace\n", email: "x@example.com" })).toBe("G");
  });

  it("takes whole characters, not halves of a surrogate pair", () => {
    expect(initials({ name: "𝒜da Lovelace", email })).toBe("𝒜L");
  });

  it("falls back to the e-mail's first letter when there is no usable name", () => {
    expect(initials({ email })).toBe("G");
    expect(initials({ name: null, email })).toBe("G");
    expect(initials({ name: "   ", email })).toBe("G");
  });

  it("is '?' when neither a name nor an e-mail is available", () => {
    expect(initials({})).toBe("?");
    expect(initials({ name: "", email: "" })).toBe("?");
    expect(initials({ name: "someone@example.com", email: "" })).toBe("?");
    expect(initials(null)).toBe("?");
    expect(initials(undefined)).toBe("?");
  });
});

describe("displayName", () => {
  it("is the name when there is one without '@'", () => {
    expect(displayName({ name: "Grace Hopper", email })).toBe("Grace Hopper");
    expect(displayName({ name: "  Grace  ", email })).toBe("Grace");
  });

  it("is undefined for a name containing '@', a blank name, or none", () => {
    expect(displayName({ name: "grace@example.com", email })).toBeUndefined();
    expect(displayName({ name: "   ", email })).toBeUndefined();
    expect(displayName({ name: null, email })).toBeUndefined();
    expect(displayName({ email })).toBeUndefined();
    expect(displayName(null)).toBeUndefined();
  });
});

describe("avatar", () => {
  it("is the image URL when there is one", () => {
    expect(avatar({ image: "https://img.example.com/g.png", email })).toBe("https://img.example.com/g.png");
  });

  it("is undefined without an image", () => {
    expect(avatar({ image: null, email })).toBeUndefined();
    expect(avatar({ image: "", email })).toBeUndefined();
    expect(avatar({ email })).toBeUndefined();
    expect(avatar(undefined)).toBeUndefined();
  });
});
