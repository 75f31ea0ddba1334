// The flame graph's interactions (src/flamegraph.rs): a box's details on hover and focus, zoom
// into a branch on click or Enter, Escape to reset, search with the Search button or "/".
// Plain DOM, no library, nothing loaded from anywhere.
(function () {
  "use strict";
  var root = document.documentElement;
  var scale = +root.getAttribute("data-scale");
  var pad = +root.getAttribute("data-pad");
  var charWidth = +root.getAttribute("data-char");
  var inner = +root.getAttribute("width") - 2 * pad;
  var group = document.getElementById("boxes");
  var boxes = Array.prototype.slice.call(group.children);
  var marks = Array.prototype.slice.call(document.querySelectorAll(".mark"));
  var details = document.getElementById("details");
  var resetButton = document.getElementById("reset");
  var matched = document.getElementById("matched");
  var idle = details.textContent;

  function num(g, name) {
    return +g.getAttribute("data-" + name);
  }
  function about(g) {
    return g.querySelector("title").textContent;
  }
  function fit(g, width) {
    var full = g.getAttribute("data-label") || about(g).split("\n")[0];
    var chars = Math.floor((width - 6) / charWidth);
    var text = g.querySelector("text");
    if (chars < 3) text.textContent = "";
    else if (full.length <= chars) text.textContent = full;
    else text.textContent = full.slice(0, chars - 2) + "..";
  }
  function place(g, left, width) {
    g.querySelector("rect").setAttribute("x", (pad + left).toFixed(2));
    g.querySelector("rect").setAttribute("width", width.toFixed(2));
    g.querySelector("text").setAttribute("x", (pad + left + 3).toFixed(2));
    fit(g, width);
  }
  function show(g, hidden) {
    if (hidden) g.classList.add("hidden");
    else g.classList.remove("hidden");
  }

  // The branch of `target` fills the width; its ancestors span it; everything else hides.
  function zoom(target) {
    var x0 = num(target, "x"), w0 = num(target, "w"), d0 = num(target, "d");
    boxes.forEach(function (g) {
      var x = num(g, "x"), w = num(g, "w"), d = num(g, "d");
      if (d >= d0 && x >= x0 && x + w <= x0 + w0) {
        show(g, false);
        place(g, ((x - x0) / w0) * inner, (w / w0) * inner);
      } else if (d < d0 && x <= x0 && x + w >= x0 + w0) {
        show(g, false);
        place(g, 0, inner);
      } else {
        show(g, true);
      }
    });
    marks.forEach(function (m) { show(m, true); });
    show(resetButton, false);
  }
  function reset() {
    boxes.forEach(function (g) {
      show(g, false);
      place(g, (num(g, "x") / scale) * inner, (num(g, "w") / scale) * inner);
    });
    marks.forEach(function (m) { show(m, false); });
    show(resetButton, true);
  }
  function search(term) {
    var needle = (term || "").toLowerCase();
    var count = 0;
    boxes.forEach(function (g) {
      var hit = needle !== "" && about(g).toLowerCase().indexOf(needle) >= 0;
      if (hit) {
        g.classList.add("match");
        count += 1;
      } else {
        g.classList.remove("match");
      }
    });
    matched.textContent = needle === "" ? "" : count + (count === 1 ? " match" : " matches");
    return count;
  }
  function ask() {
    var term = window.prompt("Search goals, ids and details:", "");
    if (term !== null) search(term);
  }
  function boxOf(node) {
    while (node && node !== group) {
      if (node.parentNode === group) return node;
      node = node.parentNode;
    }
    return null;
  }
  function describe(event) {
    var g = boxOf(event.target);
    if (!g) return;
    var text = about(g).replace(/\n/g, "  \u00b7  ");
    details.textContent = text.length > 170 ? text.slice(0, 168) + ".." : text;
  }

  group.addEventListener("click", function (event) {
    var g = boxOf(event.target);
    if (g) zoom(g);
  });
  group.addEventListener("keydown", function (event) {
    var g = boxOf(event.target);
    if (g && event.key === "Enter") zoom(g);
  });
  group.addEventListener("mouseover", describe);
  group.addEventListener("focusin", describe);
  group.addEventListener("mouseleave", function () { details.textContent = idle; });
  resetButton.addEventListener("click", reset);
  document.getElementById("search").addEventListener("click", ask);
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      reset();
      search("");
    } else if (event.key === "/" || ((event.ctrlKey || event.metaKey) && event.key === "f")) {
      event.preventDefault();
      ask();
    }
  });
  window.flamegraph = { zoom: zoom, reset: reset, search: search };
})();
