const MAX_NAME_CODE_POINTS = 200;

/**
 * Builds a Content-Disposition value that is pure ASCII (so Node accepts it as a header)
 * yet keeps non-Latin names intact: a sanitised `filename="..."` for old clients plus an
 * RFC 5987 `filename*=UTF-8''...` that modern browsers prefer.
 */
export function contentDisposition(fileName: string, type: "attachment" | "inline" = "attachment"): string {
  const name = sanitize(fileName);
  if (name.length === 0) return type;
  const fallback = asciiFallback(name);
  if (fallback === name) return `${type}; filename="${fallback}"`;
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

function sanitize(fileName: string): string {
  const cleaned = fileName
    // encodeURIComponent throws on lone surrogates.
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, "")
    // A path in a download name is at best ignored and at worst honoured.
    .replace(/[/\\]/g, "_")
    .trim();
  return Array.from(cleaned).slice(0, MAX_NAME_CODE_POINTS).join("");
}

function asciiFallback(name: string): string {
  return (
    name
      // "é" becomes "e" rather than "_" when a plain-ASCII look-alike exists.
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .replace(/[^\x20-\x7e]/g, "_")
      // Quote and backslash would end or escape the quoted string; some clients
      // percent-decode the plain parameter.
      .replace(/["\\%]/g, "_")
  );
}

function encodeRfc5987(value: string): string {
  // encodeURIComponent leaves ' ( ) * alone, but RFC 5987 attr-char does not allow them.
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
