// Cairn Smile pages: capture (camera or file), the crop square, the before/after slider.
// Photos go only to this Cairn server (same origin); nothing is stored until a crop is saved.
(function () {
  "use strict";

  // ---- Capture page -------------------------------------------------------------------------
  var capture = document.getElementById("smile-capture");
  if (capture) {
    var csrf = capture.getAttribute("data-csrf");
    var status = document.getElementById("smile-status");
    var fileError = document.getElementById("smile-file-error");
    var file = document.getElementById("smile-file");
    var say = function (text) { status.hidden = !text; status.textContent = text; };
    // A refusal is an error beside the photo field (announced: role=alert), not a status note.
    var refuse = function (text) {
      say("");
      var served = document.getElementById("upload-error");
      if (served) { served.hidden = true; }
      fileError.textContent = text; fileError.hidden = false;
      file.setAttribute("aria-invalid", "true"); file.setAttribute("aria-describedby", "smile-file-error");
    };
    var send = function (blob) {
      fileError.hidden = true; file.removeAttribute("aria-invalid");
      say("Looking for your smile…");
      fetch("/smile/upload", {
        method: "POST", credentials: "same-origin",
        headers: { "X-CSRF-Token": csrf, "Content-Type": "application/octet-stream" }, body: blob
      }).then(function (r) { return r.json(); }).then(function (answer) {
        if (answer.next) { window.location.assign(answer.next); } else { refuse(answer.error || "The photo could not be read."); }
      }).catch(function () { refuse("The photo could not be sent to Cairn. Try again."); });
    };
    document.getElementById("smile-camera-card").hidden = false;  // the camera needs this script
    var fileSend = document.getElementById("smile-file-send");
    if (fileSend) { fileSend.hidden = true; }  // with the script, choosing a file sends it
    file.addEventListener("change", function () { if (file.files && file.files[0]) { send(file.files[0]); } });

    var video = document.getElementById("smile-video");
    var start = document.getElementById("smile-camera-start");
    var take = document.getElementById("smile-camera-take");
    var stream = null;
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      start.disabled = true;
      start.textContent = "No camera available";
    }
    start.addEventListener("click", function () {
      navigator.mediaDevices.getUserMedia({ video: { facingMode: "user" }, audio: false }).then(function (s) {
        stream = s; video.srcObject = s; take.disabled = false; capture.classList.add("camera-on");
      }).catch(function () { say("The camera could not be started. You can choose a photo instead."); });
    });
    take.addEventListener("click", function () {
      if (!stream) { return; }
      var canvas = document.createElement("canvas");
      canvas.width = video.videoWidth; canvas.height = video.videoHeight;
      canvas.getContext("2d").drawImage(video, 0, 0);
      stream.getTracks().forEach(function (t) { t.stop(); });
      canvas.toBlob(function (blob) { if (blob) { send(blob); } }, "image/jpeg", 0.92);
    });
  }

  // ---- Crop page: a draggable square over the preview, kept in step with the number fields --------
  var stage = document.getElementById("smile-stage");
  if (stage) {
    var W = +stage.getAttribute("data-width"), H = +stage.getAttribute("data-height");
    var minSide = +stage.getAttribute("data-min");
    var square = document.getElementById("smile-square");
    var handle = document.getElementById("smile-handle");
    var fx = document.getElementById("smile-x"), fy = document.getElementById("smile-y"), fs = document.getElementById("smile-side");
    var img = document.getElementById("smile-preview");
    var clamp = function (v, lo, hi) { return Math.max(lo, Math.min(hi, v)); };
    var state = function () { return { x: +fx.value || 0, y: +fy.value || 0, s: +fs.value || minSide }; };
    var set = function (x, y, s) {
      s = Math.round(clamp(s, minSide, Math.min(W, H)));
      x = Math.round(clamp(x, 0, W - s)); y = Math.round(clamp(y, 0, H - s));
      fx.value = x; fy.value = y; fs.value = s; draw(); tell();
    };
    var status = document.getElementById("smile-square-status");
    var edge = function (st) {
      var at = [];
      if (st.x <= 0) { at.push("left"); } if (st.y <= 0) { at.push("top"); }
      if (st.x + st.s >= W) { at.push("right"); } if (st.y + st.s >= H) { at.push("bottom"); }
      return at.length ? " It touches the " + at.join(" and ") + " edge of the photo." : "";
    };
    // Said after each move or resize (polite, and only once the square has stopped for a moment).
    var timer = null;
    var tell = function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(function () {
        var st = state();
        status.hidden = false;
        status.textContent = "Square: " + st.s + " × " + st.s + " pixels, " + st.x + " from the left and " + st.y +
          " from the top of the " + W + " × " + H + " photo (" + Math.round(st.s / Math.min(W, H) * 100) + "% of its shorter side)." + edge(st);
      }, 250);
    };
    var draw = function () {
      var st = state();
      square.style.left = (st.x / W * 100) + "%";
      square.style.top = (st.y / H * 100) + "%";
      square.style.width = (st.s / W * 100) + "%";
      square.style.height = (st.s / H * 100) + "%";
    };
    square.hidden = false;
    stage.classList.add("is-interactive");
    draw();
    [fx, fy, fs].forEach(function (f) { f.addEventListener("input", function () { draw(); tell(); }); });

    var drag = null;
    var scale = function () { return W / img.getBoundingClientRect().width; };
    square.addEventListener("pointerdown", function (e) {
      var st = state();
      drag = { mode: e.target === handle ? "size" : "move", x0: e.clientX, y0: e.clientY, st: st, k: scale() };
      square.setPointerCapture(e.pointerId);
      e.preventDefault();
    });
    square.addEventListener("pointermove", function (e) {
      if (!drag) { return; }
      var dx = (e.clientX - drag.x0) * drag.k, dy = (e.clientY - drag.y0) * drag.k;
      if (drag.mode === "move") { set(drag.st.x + dx, drag.st.y + dy, drag.st.s); }
      else { set(drag.st.x, drag.st.y, drag.st.s + Math.max(dx, dy)); }
    });
    var stop = function () { drag = null; };
    square.addEventListener("pointerup", stop);
    square.addEventListener("pointercancel", stop);
    square.addEventListener("keydown", function (e) {
      var st = state(), step = Math.max(1, Math.round(st.s / 20)), used = true;
      if (e.key === "ArrowLeft") { set(st.x - step, st.y, st.s); }
      else if (e.key === "ArrowRight") { set(st.x + step, st.y, st.s); }
      else if (e.key === "ArrowUp") { set(st.x, st.y - step, st.s); }
      else if (e.key === "ArrowDown") { set(st.x, st.y + step, st.s); }
      else if (e.key === "+" || e.key === "=") { set(st.x - step / 2, st.y - step / 2, st.s + step); }
      else if (e.key === "-") { set(st.x + step / 2, st.y + step / 2, st.s - step); }
      else { used = false; }
      if (used) { e.preventDefault(); }
    });
    Array.prototype.forEach.call(document.querySelectorAll(".smile-candidate"), function (b) {
      b.addEventListener("click", function () {
        set(+b.getAttribute("data-x"), +b.getAttribute("data-y"), +b.getAttribute("data-side"));
      });
    });
  }

  // ---- Compare page: the after crop laid over the before one, revealed by a slider --------------
  var compare = document.getElementById("smile-compare");
  var slider = document.getElementById("smile-slider");
  if (compare && slider) {
    var after = document.getElementById("smile-after");
    var row = document.getElementById("smile-slider-row");
    compare.classList.add("is-slider");
    row.hidden = false;
    var a = slider.getAttribute("data-before"), b = slider.getAttribute("data-after");
    // Says which photo shows where, as SmilePages.sliderText does for the first render.
    var apply = function () {
      var v = Number(slider.value);
      after.style.clipPath = "inset(0 0 0 " + v + "%)";
      slider.setAttribute("aria-valuetext", v <= 0 ? "After only (" + b + ")" : v >= 100 ? "Before only (" + a + ")"
        : "Before (" + a + ") on the left " + v + "%, after (" + b + ") on the right " + (100 - v) + "%");
    };
    slider.addEventListener("input", apply);
    apply();
  }
})();
