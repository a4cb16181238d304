// Cairn Outcomes page: the CSV import shows how much of the file has been sent, then the page Cairn answers
// with (the result of every line). Without JavaScript the form posts as usual. Same origin only.
(function () {
  "use strict";
  var form = document.getElementById("outcome-import");
  if (!form || !window.XMLHttpRequest || !window.FormData) { return; }
  var progress = document.getElementById("outcome-import-progress");
  var status = document.getElementById("outcome-import-status");
  var button = document.getElementById("outcome-import-button");
  var say = function (text) { status.hidden = false; status.textContent = text; };
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var request = new XMLHttpRequest();
    request.open("POST", form.getAttribute("action"));
    request.upload.addEventListener("progress", function (e) {
      if (!e.lengthComputable) { return; }
      var percent = Math.round(e.loaded / e.total * 100);
      progress.hidden = false;
      progress.value = percent;
      say(percent < 100 ? "Sending the file: " + percent + "%" : "Reading the file…");
    });
    request.addEventListener("load", function () {
      document.open();
      document.write(request.responseText);
      document.close();
    });
    request.addEventListener("error", function () {
      button.disabled = false;
      say("The file could not be sent to Cairn. Try again.");
    });
    button.disabled = true;
    say("Sending the file…");
    request.send(new FormData(form));
  });
})();
