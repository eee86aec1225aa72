import { Marked } from "marked";
import sanitizeHtml from "sanitize-html";

// One parser for the service, GitHub-flavoured, with no extensions that emit raw HTML.
const marked = new Marked({ gfm: true, breaks: false, async: false });

/**
 * What survives sanitizing: the elements Markdown produces (plus a few harmless inline
 * ones authors write by hand). No script, style, iframe, form or object; no event handler
 * attributes (only the attributes listed here survive); URLs only http(s) and mailto,
 * images only http(s) — so no javascript:, vbscript: or data: URL can reach the page.
 */
const sanitizeOptions: sanitizeHtml.IOptions = {
  allowedTags: [
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote", "pre", "code",
    "ul", "ol", "li", "strong", "em", "del", "s", "a", "img", "table", "thead", "tbody",
    "tr", "th", "td", "sup", "sub", "kbd", "mark", "input",
  ],
  allowedAttributes: {
    a: ["href", "title", "rel", "target"],
    img: ["src", "alt", "title", "width", "height", "loading"],
    code: ["class"],
    th: ["align"],
    td: ["align"],
    ol: ["start"],
    input: ["type", "checked", "disabled"],
  },
  allowedClasses: { code: [/^language-[\w-]+$/] },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["http", "https"] },
  allowedSchemesAppliedToAttributes: ["href", "src", "cite"],
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
  nonTextTags: ["script", "style", "textarea", "option", "noscript", "iframe", "object", "embed", "template"],
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...attribs, rel: "noopener noreferrer nofollow", ...(attribs.href?.startsWith("http") ? { target: "_blank" } : {}) },
    }),
    img: (tagName, attribs) => ({ tagName, attribs: { ...attribs, loading: "lazy" } }),
    // Only GFM task-list checkboxes, never a live form control.
    input: (tagName, attribs) =>
      attribs.type === "checkbox"
        ? { tagName, attribs: { type: "checkbox", disabled: "", ...(attribs.checked !== undefined ? { checked: "" } : {}) } }
        : { tagName: "span", attribs: {}, text: "" },
  },
};

/** Markdown to HTML that is safe to put in a page as it is. */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown) as string;
  return sanitizeHtml(html, sanitizeOptions);
}
