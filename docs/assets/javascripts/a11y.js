// Accessibility fix-ups for Material's generated markup (checked by axe-core in tests/browser).
//
// Material wraps the copy button of every code block in an unnamed <nav>. Several unnamed
// navigation landmarks on one page cannot be told apart by screen-reader users (axe:
// landmark-unique), so each one is named after its code block, in the page's language.
(() => {
  const zh = document.documentElement.lang.startsWith("zh");
  const name = (n) => (zh ? `代码块 ${n} 的工具` : `Code block ${n} tools`);
  const label = () => {
    document.querySelectorAll("nav.md-code__nav").forEach((nav, i) => {
      if (!nav.hasAttribute("aria-label")) nav.setAttribute("aria-label", name(i + 1));
    });
  };
  label();
  new MutationObserver(label).observe(document.body, { childList: true, subtree: true });
})();

// A table wider than the screen (a decision table on a phone) scrolls sideways inside
// Material's wrapper, or, for a table the playground adds, in the table itself. Keyboard users
// must be able to focus it to scroll it (axe: scrollable-region-focusable). No landmark role:
// a page has many such tables, and the table inside keeps its own role and caption. Checked
// again when the window resizes or the page changes (the playground adds tables).
(() => {
  let queued = false;
  const mark = () => {
    queued = false;
    document.querySelectorAll(".md-typeset__scrollwrap, .md-typeset table:not([class])").forEach((box) => {
      if (box.hasAttribute("tabindex") || box.scrollWidth <= box.clientWidth + 1) return;
      box.setAttribute("tabindex", "0");
    });
  };
  // When the browser is idle: by then the layout is clean, so reading the widths costs nothing
  // and the first paint is not held up.
  const later = window.requestIdleCallback || ((callback) => setTimeout(callback, 200));
  const queue = () => {
    if (!queued) {
      queued = true;
      later(mark, { timeout: 2000 });
    }
  };
  queue();
  new MutationObserver(queue).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", queue);
})();
