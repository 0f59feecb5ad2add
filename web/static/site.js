// Codex7's page works without this script. With it, the catalog filters as
// you type, and raw answers get a button copying them. No inline script
// or style is used: the page's Content-Security-Policy forbids both.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var input = document.querySelector("input[data-filter]");
  if (input) {
    var box = document.querySelector(input.getAttribute("data-filter"));
    var status = document.getElementById("filter-status");
    var apply = function () {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0, cards = box.querySelectorAll("[data-search]");
      cards.forEach(function (card) {
        var hay = card.getAttribute("data-search");
        var ok = words.every(function (w) { return hay.indexOf(w) >= 0; });
        card.hidden = !ok;
        if (ok) shown++;
      });
      if (status) status.textContent = shown + " of " + cards.length + " shown";
    };
    input.addEventListener("input", apply);
  }
  document.querySelectorAll("pre[data-copy]").forEach(function (pre) {
    if (!navigator.clipboard) return;
    var b = document.createElement("button");
    b.type = "button";
    b.className = "copy";
    b.textContent = "Copy";
    b.setAttribute("aria-label", "Copy the raw text");
    b.addEventListener("click", function () {
      navigator.clipboard.writeText(pre.textContent).then(function () {
        b.textContent = "Copied";
      }, function () {
        b.textContent = "Copy failed";
      });
    });
    pre.parentNode.insertBefore(b, pre);
  });
});
