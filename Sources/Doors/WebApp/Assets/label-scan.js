// Label reading: say that the photo is being read; on the review page, highlight the box of the row in focus.
// Every page works without this file (the boxes are always drawn and numbered).
(function () {
  "use strict";
  var upload = document.getElementById("scan-upload");
  if (upload) {
    upload.addEventListener("submit", function () {
      var button = document.getElementById("scan-read");
      var progress = document.getElementById("scan-progress");
      if (progress) { progress.textContent = "Reading the label on this computer…"; }
      // Disabled after the submit has started, so the form still sends.
      if (button) { window.setTimeout(function () { button.disabled = true; }, 0); }
    });
    // Coming back to the page (the browser's Back button) finds the button ready again.
    window.addEventListener("pageshow", function () {
      var button = document.getElementById("scan-read");
      var progress = document.getElementById("scan-progress");
      if (button) { button.disabled = false; }
      if (progress) { progress.textContent = ""; }
    });
  }
  var review = document.getElementById("scan-review");
  if (!review) { return; }
  var boxes = Array.prototype.slice.call(document.querySelectorAll(".scan-box"));
  var rows = Array.prototype.slice.call(document.querySelectorAll(".scan-row"));
  var photo = document.getElementById("scan-photo");
  var current = null;
  function activate(index) {
    if (index === current) { return; }
    current = index;
    boxes.forEach(function (box) { box.classList.toggle("is-active", box.getAttribute("data-row") === index); });
    rows.forEach(function (row) { row.classList.toggle("is-active", row.getAttribute("data-row") === index); });
    // Keep the active box in view when the photo scrolls on its own (small screens, tall labels).
    var active = document.getElementById("scan-box-" + index);
    if (active && photo && photo.scrollHeight > photo.clientHeight + 4) {
      var stage = photo.getBoundingClientRect();
      var rect = active.getBoundingClientRect();
      if (rect.top < stage.top || rect.bottom > stage.bottom) {
        photo.scrollTop += rect.top - stage.top - (stage.height - rect.height) / 2;
      }
    }
  }
  function rowOf(element) {
    var row = element && element.closest ? element.closest(".scan-row") : null;
    return row ? row.getAttribute("data-row") : null;
  }
  review.addEventListener("focusin", function (event) {
    var index = rowOf(event.target);
    if (index !== null) { activate(index); }
  });
  review.addEventListener("mouseover", function (event) {
    var index = rowOf(event.target);
    if (index !== null) { activate(index); }
  });
  boxes.forEach(function (box) {
    box.addEventListener("click", function () {
      var index = box.getAttribute("data-row");
      var input = document.getElementById("row-" + index + "-name");
      if (input) { input.focus(); input.scrollIntoView({ block: "center" }); }
      activate(index);
    });
  });
})();
