// The phone's steadiness badge from its own motion sensor (the rotation rate of devicemotion), where the browser
// gives it: skin.js then leaves that badge to this script. The words are the analyser's ("Holding still",
// "Moving: hold still"); like every badge, it informs and never blocks the shutter. iOS Safari gives the sensor
// only after a tap (DeviceMotionEvent.requestPermission): the page shows a button for it when no motion arrives.
(function () {
  "use strict";
  var section = document.getElementById("skin-capture");
  if (!section) { return; }
  // Once the camera runs (skin.js shows the viewfinder), the stage is brought into view: the shutter then sits in
  // the lower part of the screen.
  var finder = document.getElementById("viewfinder");
  var stage = document.getElementById("phone-stage");
  var camera = document.getElementById("camera");
  function bringIntoView() {
    if (finder && stage && !finder.hidden) { stage.scrollIntoView({ block: "end" }); }
  }
  // The video's size is known only once its first frame's metadata arrives; the stage is placed again then.
  if (camera) {
    camera.addEventListener("loadedmetadata", bringIntoView);
    camera.addEventListener("resize", bringIntoView);
  }
  // Turning the phone lays the stage out again (landscape: camera left, badges and shutter right).
  window.addEventListener("resize", bringIntoView);
  if (finder && window.MutationObserver) {
    new MutationObserver(bringIntoView).observe(finder, { attributes: true, attributeFilter: ["hidden"] });
  }
  if (typeof DeviceMotionEvent === "undefined") { return; }
  var badge = document.getElementById("badge-steady");
  // Degrees per second, averaged over about a third of a second: a hand holding still stays well under it.
  var steadyBelow = 12;
  var recent = [];
  function onMotion(event) {
    var r = event.rotationRate;
    if (!r || (r.alpha === null && r.beta === null && r.gamma === null)) { return; }
    section.setAttribute("data-motion", "1");
    recent.push(Math.sqrt(Math.pow(r.alpha || 0, 2) + Math.pow(r.beta || 0, 2) + Math.pow(r.gamma || 0, 2)));
    if (recent.length > 20) { recent.shift(); }
    var mean = recent.reduce(function (sum, v) { return sum + v; }, 0) / recent.length;
    var steady = mean < steadyBelow;
    var text = "Steadiness: " + (steady ? "Holding still" : "Moving: hold still");
    // Only a change is written, so the live region speaks when the badge changes.
    if (badge && badge.textContent !== text) {
      badge.textContent = text;
      badge.classList.toggle("skin-badge-good", steady);
      badge.classList.toggle("skin-badge-check", !steady);
    }
  }
  window.addEventListener("devicemotion", onMotion);
  // A browser that gives motion only after asking (iOS Safari) sends nothing until the person taps: offer the
  // button then, and only then.
  var ask = document.getElementById("motion-permission");
  if (ask && typeof DeviceMotionEvent.requestPermission === "function") {
    window.setTimeout(function () {
      if (section.hasAttribute("data-motion")) { return; }
      ask.hidden = false;
      ask.addEventListener("click", function () {
        DeviceMotionEvent.requestPermission().then(function () { ask.hidden = true; }).catch(function () { ask.hidden = true; });
      });
    }, 1000);
  }
})();
