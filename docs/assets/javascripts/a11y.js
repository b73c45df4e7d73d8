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
