// Step timeline on the trajectory page: j / ArrowDown / ArrowRight go to the next step,
// k / ArrowUp / ArrowLeft to the previous one. Reads no data into markup (textContent only).
// The page opens at its top: the first step is shown without scrolling the window or
// writing a #step hash (a hash is written only when the reader moves to a step).
(function () {
  var steps = Array.prototype.slice.call(document.querySelectorAll(".step"));
  if (!steps.length) return;
  var links = Array.prototype.slice.call(document.querySelectorAll(".timeline a"));
  var timeline = document.querySelector(".timeline");
  var current = 0;
  function keepVisible(a) {
    // Scroll the timeline list itself (never the window) so the current step is in view.
    if (!timeline || timeline.scrollHeight <= timeline.clientHeight) return;
    var top = a.offsetTop - timeline.offsetTop, bottom = top + a.offsetHeight;
    if (top < timeline.scrollTop) timeline.scrollTop = top;
    else if (bottom > timeline.scrollTop + timeline.clientHeight) {
      timeline.scrollTop = bottom - timeline.clientHeight;
    }
  }
  function show(i, writeHash) {
    if (i < 0 || i >= steps.length) return;
    steps[current].classList.remove("current");
    if (links[current]) links[current].classList.remove("current");
    current = i;
    steps[current].classList.add("current");
    if (links[current]) {
      links[current].classList.add("current");
      keepVisible(links[current]);
    }
    document.body.setAttribute("data-step", steps[current].getAttribute("data-index"));
    if (writeHash) history.replaceState(null, "", "#" + steps[current].id);
  }
  links.forEach(function (a, i) {
    a.addEventListener("click", function (e) { e.preventDefault(); show(i, true); });
  });
  document.addEventListener("keydown", function (e) {
    var t = e.target && e.target.tagName;
    if (t === "INPUT" || t === "TEXTAREA" || t === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "j" || e.key === "ArrowDown" || e.key === "ArrowRight") { e.preventDefault(); show(current + 1, true); }
    if (e.key === "k" || e.key === "ArrowUp" || e.key === "ArrowLeft") { e.preventDefault(); show(current - 1, true); }
  });
  function fromHash() {
    return steps.findIndex(function (s) { return "#" + s.id === location.hash; });
  }
  // Links to a step elsewhere on the page (curation's t') move the timeline too.
  window.addEventListener("hashchange", function () {
    var i = fromHash();
    if (i >= 0 && i !== current) show(i, false);
  });
  var start = fromHash();
  show(start >= 0 ? start : 0, false);
})();
