// Accessibility fix-ups for Material's generated markup (checked by axe-core in tests/browser).
//
// Material wraps the copy button of every code block in an unnamed <nav>. Several unnamed
// navigation landmarks on one page cannot be told apart by screen-reader users (axe:
// landmark-unique), so each one is named after its code block, in the page's language. The
// number is the block's place on the page, not the order Material set the blocks up in: with
// content.lazy the block a #fragment lands on comes first, and two toolbars got one name.
(() => {
  const zh = document.documentElement.lang.startsWith("zh");
  const name = (n) => (zh ? `代码块 ${n} 的工具` : `Code block ${n} tools`);
  const label = () => {
    const navs = document.querySelectorAll("nav.md-code__nav:not([aria-label])");
    if (!navs.length) return;
    const blocks = [...document.querySelectorAll(".md-content pre")];
    navs.forEach((nav) => nav.setAttribute("aria-label", name(blocks.indexOf(nav.closest("pre")) + 1)));
  };
  label();
  new MutationObserver(label).observe(document.body, { childList: true, subtree: true });
})();

// Content tabs (request.json, result.json, the figure): the six tab sets of a field page have
// the same tab names. Each tab's radio button is described by the sentence that introduces its
// example, so a screen reader says which example a tab belongs to. (The labels stay exposed:
// their link is read after the radio button, but hidden, a screen reader's touch exploration
// found nothing in the tab strip, the radio buttons being invisible.)
(() => {
  let made = 0;
  const fix = () => {
    document.querySelectorAll(".md-typeset .tabbed-set:not([data-hb-tabs])").forEach((set) => {
      set.setAttribute("data-hb-tabs", "");
      const intro = set.previousElementSibling;
      if (!intro || !/^(P|H[2-6])$/.test(intro.tagName)) return;
      if (!intro.id) intro.id = `hb-example-${++made}`;
      set.querySelectorAll(":scope > input[type=radio]").forEach((input) => {
        input.setAttribute("aria-describedby", intro.id);
      });
    });
  };
  fix();
  new MutationObserver(fix).observe(document.body, { childList: true, subtree: true });
})();

// Search: Material's results are links around an <article> that holds a heading and a snippet.
// Chromium names no such link (a name is not taken from content through an article), so a
// screen reader said only "link" for each result, and every result added an h1 or h2 to the
// page's headings. Each link is named by its heading and described by its snippet, and the
// headings are plain text. Escape closes the search and left the focus nowhere (the page's
// body): it returns to where it was before the search opened. Material's "Copied to clipboard"
// notice is announced.
(() => {
  let made = 0;
  const results = () => {
    document.querySelectorAll("a.md-search-result__link:not([aria-labelledby])").forEach((link) => {
      const heading = link.querySelector("h1, h2");
      if (!heading) return;
      heading.id ||= `hb-result-${++made}`;
      heading.setAttribute("role", "presentation");
      link.setAttribute("aria-labelledby", heading.id);
      const snippet = link.querySelector("p");
      if (snippet) {
        snippet.id ||= `hb-result-${++made}`;
        link.setAttribute("aria-describedby", snippet.id);
      }
    });
  };
  const list = document.querySelector(".md-search-result__list");
  if (list) new MutationObserver(results).observe(list, { childList: true, subtree: true });

  let before = null;
  document.addEventListener("focusin", (event) => {
    if (!event.target.closest(".md-search")) before = event.target;
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !document.activeElement?.closest(".md-search")) return;
    // Material opens the search 1 ms after the box gets the focus (a debounced focus state), and
    // handles Escape only once it is open. On a busy page an Escape right after "/" came first:
    // Material ignored it, then opened the search, and the focus stayed in the box.
    const openAtKey = document.getElementById("__search")?.checked;
    // A frame later: Chromium moves the focus off a result link that Escape hid only when it
    // next renders, so the focus still seems to be in the closed search until then.
    requestAnimationFrame(() =>
      setTimeout(() => {
        const search = document.getElementById("__search");
        if (!openAtKey && search?.checked) {
          // As Material's own Escape: the search closes and its box loses the focus.
          search.click();
          if (document.activeElement?.closest(".md-search")) document.activeElement.blur();
        }
        const active = document.activeElement;
        const lost = !active || active === document.body || (!search?.checked && active.closest(".md-search"));
        if (lost && before?.isConnected) before.focus({ preventScroll: true });
      }),
    );
  });

  document.querySelector(".md-dialog")?.setAttribute("role", "status");
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
    // Not in search results: a result is one link, and nothing inside it takes focus.
    if (hover) boxes.push(...document.querySelectorAll(".md-content .md-typeset pre > code"));
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

// The navigation drawer (at 1220 px and narrower: a phone, or a laptop zoomed in) opened only
// by a pointer: Material's menu control is a <label> that the keyboard never reaches, while the
// closed drawer's links, off the screen, took the focus (extra.css hides them when closed). A
// real button takes the label's place: it says whether the drawer is open, moves the focus into
// it, and Escape closes it again. Without JavaScript the label stays.
(() => {
  const drawer = document.getElementById("__drawer");
  const label = document.querySelector("label.md-header__button[for='__drawer']");
  const sidebar = document.querySelector(".md-sidebar--primary");
  if (!drawer || !label || !sidebar) return;
  const zh = document.documentElement.lang.startsWith("zh");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "md-header__button md-icon hb-drawer-button";
  button.setAttribute("aria-label", zh ? "导航" : "Navigation");
  button.setAttribute("aria-expanded", String(drawer.checked));
  if (!sidebar.id) sidebar.id = "hb-navigation";
  button.setAttribute("aria-controls", sidebar.id);
  button.innerHTML = label.innerHTML; // Material's icon
  label.hidden = true;
  label.before(button);
  // The open drawer shows one panel: the deepest section opened, which slides over its parent.
  // The parent's links under it, the closed sections' panels beside it and the page's contents
  // list (transparent until opened) all took the focus, unseen: a Tab press could leave the
  // reader on a blank drawer. Only what the open panel shows takes part (the rest is inert,
  // until the panel changes), the page behind the overlay is inert while the drawer is open,
  // and a panel's title, Material's way back up, takes the focus.
  const narrow = window.matchMedia("(max-width: 76.234375em)");
  const behind = ".md-skip, .md-header, .md-content, .md-sidebar--secondary, .md-footer, .md-top";
  const controls = "a[href], label[tabindex], button, .md-nav__title[for]"; // not the toggles a label opens
  const shown = (element) =>
    element.checkVisibility?.({ opacityProperty: true, visibilityProperty: true }) ??
    element.getClientRects().length > 0;
  // Marked, so that only what this script made inert is made live again.
  const setInert = (element) => {
    if (element.inert) return;
    element.setAttribute("data-hb-inert", "");
    element.inert = true;
  };
  // In the drawer these labels are the only way into a section's panel, back out of it, and
  // into this page's contents; out of it they are out of the Tab order, as Material has them (a
  // top-level section is always open on a wide screen, and the rest are not shown). Enter on a
  // focused label clicks it (Material's script), Space too (below). Material writes
  // tabindex="" on a section's label, which the Tab key skips.
  const labels = [
    ...[...sidebar.querySelectorAll("label.md-nav__link[for]")].filter((section) => section.tabIndex < 0),
    ...sidebar.querySelectorAll("label.md-nav__title[for], label.md-nav__link[for='__toc']"),
  ].map((control) => [control, control.getAttribute("tabindex")]);
  // What a panel's title does, said to a screen reader while the drawer is open: the drawer's
  // own title closes it, a section's title goes back up (the visible arrow says it).
  const says = [...sidebar.querySelectorAll("label.md-nav__title[for]")].map((title) => {
    const words = document.createElement("span");
    words.className = "hb-visually-hidden";
    words.hidden = true;
    const closes = title.htmlFor === "__drawer";
    words.textContent = zh ? (closes ? "关闭导航：" : "返回：") : closes ? "Close navigation: " : "Back: ";
    title.prepend(words);
    return words;
  });
  // The dimmed page beside the open drawer closes it when tapped: a touch screen reader found it
  // unnamed, and the menu button is behind it.
  const overlay = document.querySelector("label.md-overlay[for='__drawer']");
  if (overlay) {
    const words = document.createElement("span");
    words.className = "hb-visually-hidden";
    words.hidden = true;
    words.textContent = zh ? "关闭导航" : "Close navigation";
    overlay.append(words);
    says.push(words);
  }
  // A panel is named by the section label that opens it, which is under the panel, and inert:
  // while open, the panel shown is named by its own title.
  const named = [];
  const reachable = () => {
    const open = drawer.checked && narrow.matches;
    says.forEach((words) => {
      words.hidden = !open;
    });
    labels.forEach(([control, was]) => {
      if (open) control.setAttribute("tabindex", "0");
      else if (was === null) control.removeAttribute("tabindex");
      else control.setAttribute("tabindex", was);
    });
    // Worked out anew each time: first everything this script made inert is live again.
    document.querySelectorAll("[data-hb-inert]").forEach((element) => {
      element.inert = false;
      element.removeAttribute("data-hb-inert");
    });
    named.splice(0).forEach((nav) => nav.removeAttribute("aria-label"));
    if (!open) return;
    document.querySelectorAll(behind).forEach(setInert);
    const navs = [...sidebar.querySelectorAll("nav.md-nav")];
    const panels = navs.filter(shown);
    // A panel not shown is inert whole (a screen reader's landmarks and lists offered it, empty).
    navs.filter((nav) => !shown(nav)).forEach(setInert);
    sidebar.querySelectorAll(controls).forEach((control) => {
      const nav = control.closest("nav.md-nav");
      const covered = panels.some((panel) => panel !== nav && nav?.contains(panel) && !panel.contains(control));
      if (covered || !shown(control)) setInert(control);
    });
    // The logo in the drawer's title repeated the title's name, a stop of its own after it.
    sidebar.querySelectorAll(".md-nav__title .md-logo").forEach(setInert);
    const top = panels.filter((panel) => !panels.some((other) => other !== panel && panel.contains(other)));
    top.forEach((panel) => {
      const title = panel.querySelector(":scope > .md-nav__title");
      if (!title || panel.hasAttribute("aria-label")) return;
      const words = [...title.childNodes].filter((node) => !node.classList?.contains("hb-visually-hidden"));
      panel.setAttribute("aria-label", words.map((node) => node.textContent).join("").trim());
      named.push(panel);
    });
  };
  // The drawer's Tab stops, in order: what the open panel shows.
  const stops = () => [...sidebar.querySelectorAll(controls)].filter((c) => c.tabIndex >= 0 && !c.inert && shown(c));
  const first = () => stops()[0];
  // After a panel's slide (0.25 s). The label that opened a panel is under it now, and inert: the
  // focus goes to the first control the new panel shows (its title, the way back). Back up, it
  // goes to the label that opens the panel just left.
  const settle = (toggle) =>
    setTimeout(() => {
      reachable();
      const active = document.activeElement;
      if (drawer.checked && narrow.matches && (!active || active === document.body || active.inert)) {
        const opener = toggle.checked ? null : sidebar.querySelector("label.md-nav__link[for=" + CSS.escape(toggle.id) + "]");
        (opener && !opener.inert && shown(opener) ? opener : first())?.focus({ preventScroll: true });
      }
    }, 300);
  const sync = () => {
    button.setAttribute("aria-expanded", String(drawer.checked));
    reachable();
  };
  drawer.addEventListener("change", sync);
  sidebar.addEventListener("change", (event) => {
    if (event.target.matches?.("input.md-nav__toggle")) settle(event.target);
  });
  narrow.addEventListener("change", reachable);
  button.addEventListener("click", () => {
    drawer.click(); // the checkbox Material's stylesheet opens the drawer by, and its events
    sync();
    if (drawer.checked) {
      // After the drawer's slide starts: focusing an element off the screen would scroll to it.
      setTimeout(() => {
        reachable();
        first()?.focus({ preventScroll: true });
      }, 50);
    }
  });
  // Closed by a key that also activates buttons (Enter or Space on the drawer's title), the focus
  // moves once the key is released: moved at once, the same key pressed the menu button and
  // opened the drawer again.
  const close = (byKey = false) => {
    drawer.click();
    sync();
    if (byKey) document.addEventListener("keyup", () => button.focus(), { once: true });
    else button.focus();
  };
  document.addEventListener("keydown", (event) => {
    if (!drawer.checked || !narrow.matches) return;
    if (event.key === "Escape") close();
    if (event.key !== "Tab") return;
    // The Tab key goes round the open panel, as in a dialog, not on to the page's start.
    const order = stops();
    const at = order.indexOf(document.activeElement);
    const next = event.shiftKey ? (at <= 0 ? order.length - 1 : -1) : at === order.length - 1 || at < 0 ? 0 : -1;
    if (next < 0 || !order.length) return;
    event.preventDefault();
    order[next].focus();
  });
  // A tap on the dimmed page closes the drawer (Material's label); the focus, left in the
  // drawer that just closed, went to the page's start. It goes back to the button, as on Escape.
  overlay?.addEventListener("click", (event) => {
    if (!drawer.checked) return;
    event.preventDefault();
    close();
  });
  // The drawer's own title closes it too (Enter on it clicks it): the same.
  sidebar.querySelector("label.md-nav__title[for='__drawer']")?.addEventListener("click", (event) => {
    if (!drawer.checked) return;
    event.preventDefault();
    close(event.detail === 0); // 0: a click made by a key (Material's Enter, or Space below)
  });
})();

// A navigation section opens and closes from a <label> that takes the focus: Enter toggled it
// (Material's script), Space, which toggles every other control a keyboard reaches, did not.
document.addEventListener("keydown", (event) => {
  if (event.key !== " " || event.ctrlKey || event.altKey || event.metaKey) return;
  const label = event.target.closest?.("label.md-nav__link[for], label.md-nav__title[for]");
  const toggle = label && document.getElementById(label.htmlFor);
  if (!toggle?.matches("input.md-toggle")) return;
  event.preventDefault(); // not a page scroll
  label.click(); // the label's own click: what it toggles, and what listens to it (the drawer's title)
});

// The language switcher leads to the same page in the other edition, at its top: a reader in
// the middle of a long page (the rules page is about 10,000 px on a phone) lost the place. Both
// editions give every heading the same id (tests/test_editions.py), so the section goes along.
document.addEventListener("click", (event) => {
  const link = event.target.closest?.("a.md-select__link[hreflang]");
  if (!link) return;
  link.dataset.hbHref ??= link.getAttribute("href"); // the page's own address, kept for every click
  link.setAttribute("href", link.dataset.hbHref + location.hash);
});

// On a narrow screen search opens from an icon in the header, a <label> a screen reader showed
// as an unnamed image. It gets its name as text (the search box itself, next in the Tab order,
// stays the keyboard's way in), and its icon is hidden from assistive technology.
(() => {
  const label = document.querySelector(".md-header label.md-header__button[for='__search']");
  if (!label) return;
  const name = document.createElement("span");
  name.className = "hb-visually-hidden"; // text, not aria-label: a <label> may not carry one
  name.textContent = document.documentElement.lang.startsWith("zh") ? "搜索" : "Search";
  label.querySelector("svg")?.setAttribute("aria-hidden", "true");
  label.append(name);
})();
