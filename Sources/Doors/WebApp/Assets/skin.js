// Skin journal pages: the overlay slider and the photo upload (sent with the CSRF header).
(function () {
  "use strict";
  var slider = document.getElementById("overlay-slider");
  var top = document.getElementById("overlay-top");
  if (slider && top) {
    // Says which photo shows, as SkinPages.overlayText does for the first render.
    var apply = function () {
      var v = Number(slider.value);
      top.style.opacity = String(v / 100);
      slider.setAttribute("aria-valuetext", v <= 0 ? "First photo only" : v >= 100 ? "Selected photo only"
        : "Selected photo " + v + "% over the first photo");
    };
    slider.addEventListener("input", apply);
    apply();
  }
  var form = document.getElementById("skin-upload");
  if (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = document.getElementById("upload");
      if (button) { button.disabled = true; button.textContent = "Adding…"; }
      fetch(form.action, {
        method: "POST", body: new FormData(form), credentials: "same-origin",
        headers: { "X-CSRF-Token": form.getAttribute("data-csrf") || "" }
      }).then(function (response) {
        if (response.redirected) { window.location.assign(response.url); return; }
        return response.text().then(function (html) {
          document.open(); document.write(html); document.close();
        });
      }).catch(function () {
        if (button) { button.disabled = false; button.textContent = "Add photo"; }
      });
    });
  }
})();

// Guided capture: camera, ghost of the last photo, live light, focus and steadiness badges from Cairn's
// analyzer (each frame is posted with the one before it, whose change stands in for a gyroscope), shutter.
// The badges inform and never block; the shutter leads to the photo's screen (the server redirects to it): the
// figure with its disclaimer and the optional note step.
(function () {
  "use strict";
  var section = document.getElementById("skin-capture");
  if (!section) { return; }
  var csrf = section.getAttribute("data-csrf") || "";
  var video = document.getElementById("camera");
  var finder = document.getElementById("viewfinder");
  var shutter = document.getElementById("shutter");
  var ghost = document.getElementById("ghost");
  var ghostSlider = document.getElementById("ghost-opacity");
  var status = document.getElementById("camera-status");
  if (ghost && ghostSlider) {
    var setGhost = function () {
      ghost.style.opacity = String(Number(ghostSlider.value) / 100);
      ghostSlider.setAttribute("aria-valuetext", "Last photo " + ghostSlider.value + "% visible");
    };
    ghostSlider.addEventListener("input", setGhost);
    setGhost();
  }
  function badge(id, label, text, good) {
    var el = document.getElementById(id);
    // Only a change is written, so the live region speaks when a badge changes, not every 400 ms.
    if (!el || el.textContent === label + ": " + text) { return; }
    el.textContent = label + ": " + text;
    el.classList.toggle("skin-badge-good", !!good);
    el.classList.toggle("skin-badge-check", !good);
  }
  function frame(width, quality, done) {
    var scale = width / video.videoWidth;
    var canvas = document.createElement("canvas");
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    canvas.toBlob(done, "image/jpeg", quality);
  }
  var busy = false;
  var previous = null;
  function measure() {
    if (busy || !video.videoWidth) { return; }
    busy = true;
    frame(320, 0.8, function (blob) {
      var data = new FormData();
      data.append("frame", blob, "frame.jpg");
      if (previous) { data.append("previous", previous, "previous.jpg"); }
      fetch(section.getAttribute("data-quality"), {
        method: "POST", body: data, credentials: "same-origin", headers: { "X-CSRF-Token": csrf }
      }).then(function (r) { return r.ok ? r.json() : null; }).then(function (q) {
        if (!q) { return; }
        previous = blob;
        badge("badge-light", "Light", q.light, q.lightGood);
        badge("badge-focus", "Focus", q.focus, q.focusGood);
        // On a phone whose motion sensor answers, phone-capture.js keeps the steadiness badge.
        if (q.steady && !section.hasAttribute("data-motion")) { badge("badge-steady", "Steadiness", q.steady, q.steadyGood); }
      }).catch(function () {}).then(function () { busy = false; });
    });
  }
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    var noBadges = document.getElementById("badges");
    if (noBadges) { noBadges.hidden = true; }
    return;
  }
  navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1920 } }, audio: false })
    .then(function (stream) {
      video.srcObject = stream;
      finder.hidden = false;
      shutter.hidden = false;
      var shown = document.getElementById("badges");
      if (shown) { shown.hidden = false; }
      var ghostControl = document.getElementById("ghost-control");
      if (ghostControl) { ghostControl.hidden = false; }
      if (status) { status.textContent = "Line the area up with the last photo. You can take the photo at any time."; }
      window.setInterval(measure, 400);
      shutter.addEventListener("click", function () {
        shutter.disabled = true;
        frame(video.videoWidth, 0.92, function (blob) {
          var data = new FormData();
          data.append("photo", blob, "camera.jpg");
          data.append("from", "capture");
          fetch(section.getAttribute("data-upload"), {
            method: "POST", body: data, credentials: "same-origin", headers: { "X-CSRF-Token": csrf }
          }).then(function (response) {
            if (response.redirected) { window.location.assign(response.url); return; }
            return response.text().then(function (html) { document.open(); document.write(html); document.close(); });
          }).catch(function () { shutter.disabled = false; });
        });
      });
    })
    .catch(function () {
      if (status) { status.textContent = "The camera is not available. Choose a photo file below instead."; }
      var badges = document.getElementById("badges");
      if (badges) { badges.hidden = true; }
    });
})();
