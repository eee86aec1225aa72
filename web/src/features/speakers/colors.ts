// One colour per speaker id, the same on every screen; readable on both themes.
const PALETTE = ["#2563eb", "#d97706", "#059669", "#db2777", "#7c3aed", "#0891b2", "#65a30d", "#dc2626"];

export function speakerColor(id: string): string {
  const n = Number(id.replace(/^S/, ""));
  return PALETTE[(Number.isFinite(n) && n > 0 ? n - 1 : 0) % PALETTE.length]!;
}
