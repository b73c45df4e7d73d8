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
//
// A code block that scrolls sideways gets the same, until Material mounts it: with the
// content.lazy feature (mkdocs.yml) Material sets up a code block (copy button, and a tabindex
// where the device can hover) only when it first comes into view, so a block further down the
// page would otherwise not be reachable by keyboard. The same rule as Material's: only where
// the device can hover; once mounted, Material keeps the attribute up to date itself.
(() => {
  const hover = window.matchMedia("(hover)").matches;
  let queued = false;
  const mark = () => {
    queued = false;
    const boxes = [...document.querySelectorAll(".md-typeset__scrollwrap, .md-typeset table:not([class])")];
    if (hover) boxes.push(...document.querySelectorAll(".md-typeset pre > code"));
    // Every width is read before any attribute is written: one layout, not one per box.
    boxes
      .filter((box) => !box.hasAttribute("tabindex") && box.scrollWidth > box.clientWidth + 1)
      .forEach((box) => box.setAttribute("tabindex", "0"));
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

// An address with a #fragment below examples (#example on a field page) landed hundreds of
// pixels past its heading on a phone: tab sets and figures above it that the browser laid out
// after it had scrolled changed height (figure.css laid tab sets out only near the screen then;
// a slow machine still lays them out late). Scroll to the target again
// until it has stayed put for a while (a second or two at most); a reader who scrolls or
// presses first keeps their place, and a newer #fragment (a link followed meanwhile) ends the
// older one's scrolling.
(() => {
  let latest = 0;
  const settle = () => {
    const mine = ++latest;
    let id = "";
    try {
      id = decodeURIComponent(location.hash.slice(1));
    } catch {
      return; // not a fragment this page can hold (a stray %)
    }
    const target = id && document.getElementById(id);
    if (!target) return;
    let tries = 0;
    let still = 0;
    let moved = false;
    const stop = () => (moved = true);
    window.addEventListener("wheel", stop, { once: true, passive: true });
    window.addEventListener("touchstart", stop, { once: true, passive: true });
    window.addEventListener("pointerdown", stop, { once: true, passive: true });
    window.addEventListener("keydown", stop, { once: true });
    // Every other frame, for as long as the target keeps moving and then 8 times more: a tab set
    // laid out late (a slow machine, a large figure) moved it after one quiet check.
    const again = () => {
      if (moved || mine !== latest || tries++ > 60) return;
      const before = target.getBoundingClientRect().top;
      target.scrollIntoView();
      still = Math.abs(target.getBoundingClientRect().top - before) > 1 ? 0 : still + 1;
      if (still < 8) requestAnimationFrame(() => requestAnimationFrame(again));
    };
    requestAnimationFrame(again);
  };
  if (document.readyState === "complete") settle();
  else window.addEventListener("load", settle, { once: true });
  window.addEventListener("hashchange", settle);
})();
