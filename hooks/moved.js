/* Moved addresses (hooks/moved.py writes this file to assets/javascripts/moved.js).
 *
 * On a redirect page (<html data-moved-to="...">): go to the page's new address and keep the
 * #fragment, which a meta refresh would drop.
 * On a page with aliases (<span id="old" data-moved-to="#new" or "../other/#id">): when the
 * address names an alias, replace it with the anchor's new address.
 * An external file, so a Content-Security-Policy of script-src 'self' allows it.
 */
(function () {
  "use strict";

  function follow() {
    var page = document.documentElement.getAttribute("data-moved-to");
    if (page !== null) {
      location.replace(new URL(page, location.href).href.split("#")[0] + location.hash);
      return;
    }
    var id = location.hash.slice(1);
    if (!id) return;
    try {
      id = decodeURIComponent(id);
    } catch (error) {
      return;
    }
    var alias = document.getElementById(id);
    var to = alias && alias.getAttribute("data-moved-to");
    if (to) location.replace(new URL(to, location.href).href);
  }

  follow();
  window.addEventListener("hashchange", follow);
})();
