// Values derived from the signed-in user (docs/requirements.md "Entities"), kept free of React so every case is
// tested directly. A name containing '@' is an e-mail address that ended up in the name
// field, not something to greet the user with, so it counts as no name.

/** The parts of a user the derived values read; everything optional so a partial user works. */
export interface UserIdentity {
  email?: string | null | undefined;
  name?: string | null | undefined;
  image?: string | null | undefined;
}

const FALLBACK_INITIALS = "?";

function firstLetter(text: string): string {
  // By code point, not UTF-16 unit, so a name starting with an emoji or a rare script
  // does not show half a surrogate pair.
  return Array.from(text)[0] ?? "";
}

function trimmed(value: string | null | undefined): string | undefined {
  const text = value?.trim();
  return text ? text : undefined;
}

/**
 * Letters for the avatar fallback.
 *
 * The spec lists: a name containing '@' → the e-mail's first letter, uppercased; a one-word
 * name → its first letter; several words → first letters of the first and last words,
 * uppercased; nothing available → '?'. It does not say what happens with no name but an
 * e-mail. We read "nothing available" literally: while the e-mail exists something is
 * available, so a missing (or blank) name also falls back to the e-mail's first letter,
 * and '?' appears only when there is neither a usable name nor an e-mail.
 * Single-word initials are uppercased too, so "ada" and "Ada" look the same in the menu.
 */
export function initials(user: UserIdentity | null | undefined): string {
  const name = trimmed(user?.name);
  const email = trimmed(user?.email);
  const fromEmail = email ? firstLetter(email).toUpperCase() : FALLBACK_INITIALS;

  if (!name || name.includes("@")) return fromEmail;
  const words = name.split(/\s+/);
  const first = words[0] ?? "";
  const last = words.length > 1 ? (words[words.length - 1] ?? "") : "";
  return (firstLetter(first) + firstLetter(last)).toUpperCase();
}

/** The name to show, or undefined when there is none or it is really an e-mail address. */
export function displayName(user: UserIdentity | null | undefined): string | undefined {
  const name = trimmed(user?.name);
  return name && !name.includes("@") ? name : undefined;
}

/** The avatar image URL, or undefined when the user has none. */
export function avatar(user: UserIdentity | null | undefined): string | undefined {
  return trimmed(user?.image);
}
