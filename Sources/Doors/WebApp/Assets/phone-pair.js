// The phone's pairing page: the pairing code is in the address's fragment (never sent in a request, a log or a
// Referer). It is taken out of the address bar at once, posted to Cairn once, and the page then waits for the
// computer to allow this phone.
(function () {
  "use strict";
  var secret = window.location.hash.slice(1);
  window.history.replaceState(null, "", window.location.pathname);
  var status = document.getElementById("pair-status");
  function say(text) { if (status) { status.textContent = text; } }
  if (!secret) {
    say("This address carries no pairing code. Scan the code on your computer again.");
    return;
  }
  function poll() {
    fetch("/pair/status", { cache: "no-store", credentials: "same-origin" }).then(function (response) {
      if (response.status === 200) {
        window.location.replace("/");
      } else if (response.status === 202) {
        window.setTimeout(poll, 1500);
      } else {
        say("The computer did not allow this phone. To try again, scan the new code on the computer.");
      }
    }).catch(function () {
      say("The computer no longer answers: the phone session has ended.");
    });
  }
  fetch("/pair", {
    method: "POST",
    cache: "no-store",
    credentials: "same-origin",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ secret: secret }).toString()
  }).then(function (response) {
    secret = "";
    if (response.status === 202) {
      say("Now allow this phone on your computer: Cairn asks there.");
      poll();
    } else if (response.status === 429) {
      say("Too many tries. Wait a minute, then scan the code on your computer again.");
    } else {
      say("This pairing code was not accepted: each code works once. Scan the new code on your computer.");
    }
  }).catch(function () {
    say("The computer did not answer. Check that the phone session is still open on the computer.");
  });
})();
