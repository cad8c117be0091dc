// Step timeline on the trajectory page: j / ArrowDown / ArrowRight go to the next step,
// k / ArrowUp / ArrowLeft to the previous one. Reads no data into markup (textContent only).
(function () {
  var steps = Array.prototype.slice.call(document.querySelectorAll(".step"));
  if (!steps.length) return;
  var links = Array.prototype.slice.call(document.querySelectorAll(".timeline a"));
  var current = 0;
  function show(i) {
    if (i < 0 || i >= steps.length) return;
    steps[current].classList.remove("current");
    if (links[current]) links[current].classList.remove("current");
    current = i;
    steps[current].classList.add("current");
    if (links[current]) {
      links[current].classList.add("current");
      links[current].scrollIntoView({block: "nearest"});
    }
    document.body.setAttribute("data-step", steps[current].getAttribute("data-index"));
    history.replaceState(null, "", "#" + steps[current].id);
  }
  links.forEach(function (a, i) {
    a.addEventListener("click", function (e) { e.preventDefault(); show(i); });
  });
  document.addEventListener("keydown", function (e) {
    var t = e.target && e.target.tagName;
    if (t === "INPUT" || t === "TEXTAREA" || t === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "j" || e.key === "ArrowDown" || e.key === "ArrowRight") { e.preventDefault(); show(current + 1); }
    if (e.key === "k" || e.key === "ArrowUp" || e.key === "ArrowLeft") { e.preventDefault(); show(current - 1); }
  });
  function fromHash() {
    return steps.findIndex(function (s) { return "#" + s.id === location.hash; });
  }
  // Links to a step elsewhere on the page (curation's t') move the timeline too.
  window.addEventListener("hashchange", function () {
    var i = fromHash();
    if (i >= 0 && i !== current) show(i);
  });
  var start = fromHash();
  show(start >= 0 ? start : 0);
})();
