/*
 * A page load is not a colour switch (issue 14: Lighthouse's total blocking time).
 *
 * When its script starts, Material's palette component applies the reader's colour scheme as
 * if the reader had just switched it: it sets data-md-color-switching on <body>, for which its
 * stylesheet turns every transition off ("[data-md-color-switching] *"), and removes it again
 * right after. Each of the two changes makes the browser work out the style of every element
 * of the page again: on a field page, in Chromium at Lighthouse's mobile CPU speed, that is
 * about 100-150 ms of the page's start-up (element styles recalculated: about 4,600 -> 3,200).
 * At load nothing switches; the scheme is already on <body> (Material's template and its inline
 * script) before the first paint.
 *
 * So the first time anything sets that attribute on <body>, before the page's load event, it
 * is not set (and removing it then changes nothing). Later switches, made by the reader with
 * the toggle, set it as Material intends. Loaded (deferred) before Material's bundle
 * (overrides/main.html); tests/browser/test_behaviour.py checks both halves.
 */
(function () {
  "use strict";

  var body = document.body;
  var setAttribute = Element.prototype.setAttribute;

  function done() {
    if (Object.prototype.hasOwnProperty.call(body, "setAttribute")) delete body.setAttribute;
  }

  body.setAttribute = function (name, value) {
    if (name === "data-md-color-switching") {
      done();
      return undefined;
    }
    return setAttribute.call(this, name, value);
  };
  window.addEventListener("load", done, { once: true });
})();
