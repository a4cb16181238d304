// The phone's steadiness badge from its own motion sensor (the rotation rate of devicemotion), where the browser
// gives it: skin.js then leaves that badge to this script. The words are the analyser's ("Holding still",
// "Moving: hold still"); like every badge, it informs and never blocks the shutter. iOS Safari asks for the
// sensor from a tap (DeviceMotionEvent.requestPermission), so the page shows a button for it there.
(function () {
  "use strict";
  var section = document.getElementById("skin-capture");
  if (!section || typeof DeviceMotionEvent === "undefined") { return; }
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
  var ask = document.getElementById("motion-permission");
  if (typeof DeviceMotionEvent.requestPermission === "function") {
    if (!ask) { return; }
    ask.hidden = false;
    ask.addEventListener("click", function () {
      DeviceMotionEvent.requestPermission().then(function (answer) {
        if (answer === "granted") { window.addEventListener("devicemotion", onMotion); }
        ask.hidden = true;
      }).catch(function () { ask.hidden = true; });
    });
  } else {
    window.addEventListener("devicemotion", onMotion);
  }
})();
